package dev.rota.agentapi;

/**
 * {@code POST /v1/disks/{id}/snapshot}'s answer: the persistent disk, at rest, saved as an image,
 * pushed to its registry and kept in the worker's cache.
 *
 * @param image the {@code oci://} reference it was pushed as
 * @param digest its manifest's digest ({@code sha256:...}), which pins it
 * @param bytes the size of its disk
 */
public record DiskSnapshot(String image, String digest, long bytes) {
  /** The request: the {@code oci://} reference, with a tag, to push the snapshot as. */
  public record Request(String image) {}
}
