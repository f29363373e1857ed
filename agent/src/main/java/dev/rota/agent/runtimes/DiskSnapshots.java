package dev.rota.agent.runtimes;

import dev.rota.agent.images.ImageCache;
import dev.rota.agent.images.OciRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots of persistent disks as images: the disk, at rest, flattened with the image it is an
 * overlay of into one qcow2 ({@code qemu-img convert}), pushed to an OCI registry, and kept in this
 * worker's image cache under the same reference, so that a VM started from it here needs no pull
 * and any other worker pulls it as any image.
 */
public final class DiskSnapshots {
  private static final Logger log = LoggerFactory.getLogger(DiskSnapshots.class);

  private final PersistentDisks disks;
  private final ImageCache images;
  private final OciRegistry registry;
  private final Supplier<QemuHost> host;

  public DiskSnapshots(
      PersistentDisks disks, ImageCache images, OciRegistry registry, Supplier<QemuHost> host) {
    this.disks = disks;
    this.images = images;
    this.registry = registry;
    this.host = host;
  }

  /**
   * Snapshots disk {@code id} as {@code image} (an {@code oci://} reference with a tag); null when
   * this worker does not hold the disk.
   *
   * @throws IllegalStateException while a task runs from the disk
   */
  public dev.rota.agentapi.DiskSnapshot snapshot(String id, String image)
      throws IOException, ImageCache.ImageException, InterruptedException {
    Path made = images.newFile();
    try {
      boolean held =
          disks.whileAtRest(
              id,
              overlay ->
                  host.get()
                      .imageTool(
                          "convert", "-q", "-O", "qcow2", overlay.toString(), made.toString()));
      if (!held) {
        return null;
      }
      long bytes = Files.size(made);
      String sha = ImageCache.sha256(made); // read once, for the registry and the cache
      String digest = registry.push(image, made, sha, "disk.qcow2");
      images.keep(image, made, sha);
      log.info("disk {} snapshotted as {} ({}, {} bytes)", id, image, digest, bytes);
      return new dev.rota.agentapi.DiskSnapshot(image, digest, bytes);
    } finally {
      Files.deleteIfExists(made);
    }
  }
}
