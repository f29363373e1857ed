package dev.rota.agentapi;

/**
 * A persistent disk or a data volume as its worker's agent lists it ({@code GET /v1/disks}).
 *
 * @param id {@code <vm>-<submission>} ({@link DiskSpec#idOf}) for a disk, {@code <name>-v<number>}
 *     ({@link VolumeSpec#idOf}) for a volume
 * @param image the image it is an overlay of; null for a volume, or a saved memory alone
 * @param bytes what its overlay takes on the worker's disk
 */
public record HeldDisk(String id, String image, long bytes) {
  /** Whether it is a data volume rather than a VM's disk. */
  public boolean volume() {
    return VolumeSpec.ID.matcher(id).matches();
  }

  /** The VM it is of (the volume's name, for a volume): the id without its number. */
  public String vm() {
    return id.substring(0, id.lastIndexOf('-'));
  }

  /** The submission of the VM it is of (the volume's number, for a volume). */
  public long submission() {
    return Long.parseLong(id.substring(id.lastIndexOf('-') + (volume() ? 2 : 1)));
  }
}
