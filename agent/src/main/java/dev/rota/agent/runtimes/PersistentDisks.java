package dev.rota.agent.runtimes;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.images.ImageCache;
import dev.rota.agent.tasks.Task;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The persistent root disks of this worker's {@code qemu} VMs: one overlay of the VM's image per VM
 * submission, in {@code disks/<id>/} beside the tasks rather than in a task's folder, so that the
 * VM's next task (a start after a stop, a restart) boots from it again. A suspended VM's saved
 * memory is kept there too ({@code memory.state}), with its disk or, for a VM booted from a kernel
 * alone, on its own; it is used once, by the task that resumes the VM, and dropped by any other
 * task that takes the disk, since the disk has moved on from it. A disk holds the image it is an
 * overlay of in the cache for as long as it exists, across agent restarts. It goes when the
 * controller says its VM is deleted ({@code DELETE /v1/disks/{id}}). One task at a time boots from
 * a disk: the next generation's waits until the one before has ended. A data volume is kept here
 * the same way, under an id of its own ({@code <name>-v<number>}), made blank rather than from an
 * image, and deleted when the volume is.
 */
public final class PersistentDisks {
  private static final Logger log = LoggerFactory.getLogger(PersistentDisks.class);

  /** How long a task waits for the task before it (being removed) to let go of the disk. */
  static final Duration HANDOVER = Duration.ofMinutes(2);

  /** What a disk is an overlay of, written beside it; a saved memory alone has no image. */
  record Record(String id, String image, String sha256) {}

  private final Path root;
  private final ImageCache images;
  private final ObjectMapper json;
  private final Map<String, Task> users = new HashMap<>();

  public PersistentDisks(Path root, ImageCache images, ObjectMapper json) throws IOException {
    this.root = root;
    this.images = images;
    this.json = json;
    Files.createDirectories(root);
    for (Record r : records()) {
      if (r.sha256() != null) {
        images.retain(r.sha256());
      } // the disk needs its image whether or not a task runs from it
    }
  }

  /** Where the overlay of disk {@code id} is, made or not. */
  public Path overlay(String id) {
    return root.resolve(id).resolve("disk.qcow2");
  }

  /** Where the machine {@code id}'s saved memory was saved on is written, saved or not. */
  private Path machineOfMemory(String id) {
    return root.resolve(id).resolve("memory.machine");
  }

  /** Where the saved memory of {@code id} is, saved or not. */
  public Path memory(String id) {
    return root.resolve(id).resolve("memory.state");
  }

  /**
   * What the machine that saved {@code id}'s memory was (its CPUs, memory and devices), which a
   * QEMU loading it must be; null when it is not known.
   */
  public String memoryMachine(String id) throws IOException {
    Path file = machineOfMemory(id);
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
  }

  /**
   * Saves {@code id}'s memory by {@code save}, on a machine of {@code machine}, beside its place
   * and renamed, so that a saved memory is whole or absent.
   *
   * @return its size in bytes
   */
  public long saveMemory(String id, String machine, Maker save) throws IOException {
    Path dir = root.resolve(id);
    Files.createDirectories(dir);
    if (read(dir) == null) {
      json.writeValue(dir.resolve("disk.json").toFile(), new Record(id, null, null));
    }
    if (machine == null) {
      Files.deleteIfExists(machineOfMemory(id));
    } else {
      Files.writeString(machineOfMemory(id), machine, StandardCharsets.UTF_8);
    }
    Path partial = dir.resolve("memory.state.partial");
    Files.deleteIfExists(partial);
    save.make(partial);
    Files.move(
        partial, memory(id), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    log.info("memory of {} saved", id);
    return Files.size(memory(id));
  }

  /** Drops {@code id}'s saved memory, and its folder when it holds no disk. */
  public synchronized void dropMemory(String id) throws IOException {
    Files.deleteIfExists(memory(id));
    Files.deleteIfExists(machineOfMemory(id));
    if (!Files.exists(overlay(id)) && Files.isDirectory(root.resolve(id))) {
      dev.rota.agent.machine.Folders.delete(root.resolve(id));
    }
  }

  /**
   * The disk's overlay for {@code task}, made from {@code image} (null for a volume) by {@code
   * make} when the VM has none yet on this worker: made beside its place and renamed, so that a
   * disk is whole or absent. Waits for an earlier task of the VM that still runs from the disk to
   * end.
   */
  public Path take(String id, Task task, ImageCache.Lease image, Maker make)
      throws IOException, InterruptedException {
    awaitTurn(id, task);
    if (!task.spec.resumes()) {
      Files.deleteIfExists(memory(id));
    }
    Path overlay = overlay(id);
    if (Files.exists(overlay) && task.spec.arrives()) {
      // A VM arriving by a live move is sent only what its disk holds over its image: a disk left
      // here from an earlier time would keep whatever the one sent does not overwrite.
      Record left = read(overlay.getParent());
      Files.delete(overlay);
      if (left != null && left.sha256() != null) {
        images.release(left.sha256());
      }
    }
    if (Files.exists(overlay)) {
      return overlay;
    }
    Path dir = overlay.getParent();
    Files.createDirectories(dir);
    Path partial = dir.resolve("disk.qcow2.partial");
    Files.deleteIfExists(partial);
    make.make(partial);
    if (image == null) {
      json.writeValue(dir.resolve("disk.json").toFile(), new Record(id, null, null));
      Files.move(partial, overlay, StandardCopyOption.ATOMIC_MOVE);
      log.info("volume {} made", id);
      return overlay;
    }
    json.writeValue(
        dir.resolve("disk.json").toFile(), new Record(id, image.image(), image.sha256()));
    images.retain(image.sha256());
    Files.move(partial, overlay, StandardCopyOption.ATOMIC_MOVE);
    log.info("disk {} made from {}", id, image.image());
    return overlay;
  }

  /** Makes an overlay at the path given. */
  public interface Maker {
    void make(Path overlay) throws IOException;
  }

  private synchronized void awaitTurn(String id, Task task) throws InterruptedException {
    long deadline = System.nanoTime() + HANDOVER.toNanos();
    while (true) {
      Task user = users.get(id);
      if ((user == null || user == task || user.ended() || user.isRemoved())
          && !atRest.contains(id)) {
        users.put(id, task);
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(
            user == null
                ? "its disk is being snapshotted"
                : "its disk is still used by task " + user.id + ", which has not ended");
      }
      wait(Math.min(100, Math.max(1, left / 1_000_000)));
    }
  }

  /**
   * The file {@code name} of disk {@code id}, to copy to another worker: only while no task runs
   * from the disk, so that the copy is of a disk at rest. Null when this worker does not hold it.
   */
  public synchronized Path export(String id, String name) {
    Task user = users.get(id);
    if (user != null && !user.ended() && !user.isRemoved()) {
      throw new IllegalStateException(
          "disk " + id + " is in use by task " + user.id + ", which has not ended");
    }
    Path file = root.resolve(id).resolve(name);
    return Files.isRegularFile(file) ? file : null;
  }

  /** Disks being read whole at rest: no task takes them meanwhile. */
  private final java.util.Set<String> atRest = new java.util.HashSet<>();

  /**
   * Runs {@code read} on disk {@code id}'s overlay while no task runs from it, and keeps any task
   * from taking it meanwhile; false when this worker does not hold it.
   *
   * @throws IllegalStateException while a task runs from the disk
   */
  public boolean whileAtRest(String id, Maker read) throws IOException {
    Path overlay;
    synchronized (this) {
      overlay = export(id, "disk.qcow2");
      if (overlay == null) {
        return false;
      }
      if (!atRest.add(id)) {
        throw new IllegalStateException("disk " + id + " is being snapshotted already");
      }
    }
    try {
      read.make(overlay);
      return true;
    } finally {
      synchronized (this) {
        atRest.remove(id);
        notifyAll();
      }
    }
  }

  /** The disks this worker holds. */
  public List<dev.rota.agentapi.HeldDisk> list() {
    List<dev.rota.agentapi.HeldDisk> held = new ArrayList<>();
    for (Record r : records()) {
      long bytes = 0;
      try {
        for (Path file : List.of(overlay(r.id()), memory(r.id()))) {
          bytes += Files.exists(file) ? Files.size(file) : 0;
        }
      } catch (IOException e) {
        continue; // going
      }
      held.add(new dev.rota.agentapi.HeldDisk(r.id(), r.image(), bytes));
    }
    return held;
  }

  /**
   * Removes disk {@code id}, letting its image go; false when a task still runs from it (its VM is
   * deleted once its task is gone, so that is an earlier VM's disk under a name taken again).
   */
  public synchronized boolean delete(String id) throws IOException {
    Task user = users.get(id);
    if (user != null && !user.ended() && !user.isRemoved() || atRest.contains(id)) {
      return false;
    }
    users.remove(id);
    Path dir = root.resolve(id);
    if (!Files.isDirectory(dir)) {
      return true;
    }
    Record r = read(dir);
    dev.rota.agent.machine.Folders.delete(dir);
    if (r != null && r.sha256() != null) {
      images.release(r.sha256());
    }
    log.info("disk {} deleted", id);
    return true;
  }

  private List<Record> records() {
    List<Record> found = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root)) {
      for (Path dir : dirs.toList()) {
        Record r = read(dir);
        if (r != null && (Files.exists(overlay(r.id())) || Files.exists(memory(r.id())))) {
          found.add(r);
        }
      }
    } catch (IOException e) {
      log.warn("cannot read the disks in {}: {}", root, e.toString());
    }
    return found;
  }

  private Record read(Path dir) {
    try {
      return json.readValue(dir.resolve("disk.json").toFile(), Record.class);
    } catch (IOException e) {
      return null;
    }
  }
}
