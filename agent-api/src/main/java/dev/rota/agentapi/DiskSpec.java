package dev.rota.agentapi;

/**
 * A {@code qemu} VM's disks: its root disk, a copy-on-write overlay of its image, and the data
 * volumes it mounts.
 *
 * @param id the disk's name on its worker, the same for every task of one VM submission ({@code
 *     <vm>-<submission>}), so that a persistent disk is found again by the VM's next task
 * @param persistent whether the overlay outlives the task: kept on the worker, outside the task's
 *     folder, until the VM is deleted; otherwise it goes with the task
 * @param sizeGi the size the guest sees, in GiB, when larger than the image's; null for the image's
 * @param from where the disk and the volumes are copied from when this worker does not hold them
 *     yet (the VM moves with its disk); null: made afresh here
 * @param volumes the data volumes it mounts, in order; null or empty for none
 */
public record DiskSpec(
    String id,
    boolean persistent,
    Integer sizeGi,
    DiskSource from,
    java.util.List<VolumeSpec> volumes) {
  public DiskSpec(String id, boolean persistent, Integer sizeGi) {
    this(id, persistent, sizeGi, null, null);
  }

  public DiskSpec(String id, boolean persistent, Integer sizeGi, DiskSource from) {
    this(id, persistent, sizeGi, from, null);
  }

  /** Its volumes, none when it has none. */
  public java.util.List<VolumeSpec> volumesOrNone() {
    return volumes == null ? java.util.List.of() : volumes;
  }

  /** A disk's id: a VM name (a DNS label), a dash, and a submission number. */
  public static final java.util.regex.Pattern ID =
      java.util.regex.Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?-[0-9]{1,19}$");

  public static String idOf(String vm, long submission) {
    return vm + "-" + submission;
  }
}
