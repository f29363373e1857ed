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
 * and any other worker pulls it as any image. The memory a suspended VM saved may go with it, as a
 * layer of its own that names the machine it was saved on: a VM started from such an image takes it
 * back instead of booting ({@link QemuRuntime}).
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
   * Snapshots disk {@code id} as {@code image} (an {@code oci://} reference with a tag), with the
   * memory its VM saved when {@code withMemory}; null when this worker does not hold the disk.
   *
   * @throws IllegalStateException while a task runs from the disk, or with {@code withMemory} when
   *     it has no saved memory
   */
  public dev.rota.agentapi.DiskSnapshot snapshot(String id, String image, boolean withMemory)
      throws IOException, ImageCache.ImageException, InterruptedException {
    Path made = images.newFile();
    Path memoryMade = withMemory ? images.newFile() : null;
    String[] machine = {null};
    try {
      boolean held =
          disks.whileAtRest(
              id,
              overlay -> {
                if (withMemory) {
                  machine[0] = savedMemory(id, memoryMade);
                }
                host.get()
                    .imageTool("convert", "-q", "-O", "qcow2", overlay.toString(), made.toString());
              });
      if (!held) {
        return null;
      }
      long bytes = Files.size(made);
      String sha = ImageCache.sha256(made); // read once, for the registry and the cache
      ImageCache.Memory memory =
          withMemory
              ? new ImageCache.Memory(
                  ImageCache.sha256(memoryMade), Files.size(memoryMade), machine[0])
              : null;
      long memoryBytes = memory == null ? 0 : memory.size();
      String digest = registry.push(image, made, sha, "disk.qcow2", memoryMade, memory);
      images.keep(image, made, sha, memoryMade, memory);
      log.info(
          "disk {} snapshotted as {} ({}, {} bytes, {} bytes of memory)",
          id,
          image,
          digest,
          bytes,
          memoryBytes);
      return new dev.rota.agentapi.DiskSnapshot(image, digest, bytes, memoryBytes);
    } finally {
      Files.deleteIfExists(made);
      if (memoryMade != null) {
        Files.deleteIfExists(memoryMade);
      }
    }
  }

  /**
   * Puts the memory disk {@code id}'s VM saved at {@code to} (a link, or a copy across file
   * systems: the VM may be resumed, and its memory dropped, while the snapshot is pushed); returns
   * the machine it was saved on.
   */
  private String savedMemory(String id, Path to) throws IOException {
    Path saved = disks.memory(id);
    String machine = disks.memoryMachine(id);
    if (!Files.exists(saved) || machine == null) {
      throw new IllegalStateException(
          "disk " + id + " has no saved memory to go with it: its VM is not suspended here");
    }
    Files.delete(to);
    try {
      Files.createLink(to, saved);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(saved, to);
    }
    return machine;
  }
}
