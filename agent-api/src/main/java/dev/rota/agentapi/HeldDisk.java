package dev.rota.agentapi;

/**
 * A persistent disk as its worker's agent lists it ({@code GET /v1/disks}).
 *
 * @param id {@code <vm>-<submission>} ({@link DiskSpec#idOf})
 * @param image the image it is an overlay of
 * @param bytes what its overlay takes on the worker's disk
 */
public record HeldDisk(String id, String image, long bytes) {
  /** The VM it is of: the id without its submission. */
  public String vm() {
    return id.substring(0, id.lastIndexOf('-'));
  }

  /** The submission of the VM it is of. */
  public long submission() {
    return Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
  }
}
