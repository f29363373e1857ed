package dev.rota.agentapi;

/**
 * {@code POST /v1/disks/{id}/snapshot}'s answer: the persistent disk, at rest, saved as an image,
 * pushed to its registry and kept in the worker's cache; with its VM's saved memory when asked.
 *
 * @param image the {@code oci://} reference it was pushed as
 * @param digest its manifest's digest ({@code sha256:...}), which pins it
 * @param bytes the size of its disk
 * @param memoryBytes the size of the guest's memory saved with it; 0 for a disk alone
 */
public record DiskSnapshot(String image, String digest, long bytes, long memoryBytes) {
  /**
   * The request: the {@code oci://} reference, with a tag, to push the snapshot as; with {@code
   * memory}, the memory the disk's suspended VM saved goes with it.
   */
  public record Request(String image, boolean memory) {}
}
