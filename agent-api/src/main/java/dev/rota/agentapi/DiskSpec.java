package dev.rota.agentapi;

/**
 * A {@code qemu} VM's root disk: a copy-on-write overlay of its image.
 *
 * @param id the disk's name on its worker, the same for every task of one VM submission ({@code
 *     <vm>-<submission>}), so that a persistent disk is found again by the VM's next task
 * @param persistent whether the overlay outlives the task: kept on the worker, outside the task's
 *     folder, until the VM is deleted; otherwise it goes with the task
 * @param sizeGi the size the guest sees, in GiB, when larger than the image's; null for the image's
 * @param from where the disk is copied from when this worker does not hold it yet (the VM moves
 *     with its disk); null: made afresh here
 */
public record DiskSpec(String id, boolean persistent, Integer sizeGi, DiskSource from) {
  public DiskSpec(String id, boolean persistent, Integer sizeGi) {
    this(id, persistent, sizeGi, null);
  }

  /** A disk's id: a VM name (a DNS label), a dash, and a submission number. */
  public static final java.util.regex.Pattern ID =
      java.util.regex.Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?-[0-9]{1,19}$");

  public static String idOf(String vm, long submission) {
    return vm + "-" + submission;
  }
}
