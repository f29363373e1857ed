package dev.rota.control;

import dev.rota.store.Sql;
import dev.rota.store.VolumeRepository;
import dev.rota.store.VolumeRow;
import dev.rota.store.WorkerRepository;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is done to data volumes: made (on a worker, or wherever the first VM mounting one goes) and
 * deleted while no VM mounts them, their data on their worker with them. VMs mount them as they are
 * submitted ({@link VmSubmissions}).
 */
@Singleton
public class VolumeCommands {
  private static final Logger log = LoggerFactory.getLogger(VolumeCommands.class);

  private final VolumeRepository volumes;
  private final WorkerRepository workers;
  private final DiskSweeper disks;
  private final Clock clock;

  public VolumeCommands(
      VolumeRepository volumes, WorkerRepository workers, DiskSweeper disks, Clock clock) {
    this.volumes = volumes;
    this.workers = workers;
    this.disks = disks;
    this.clock = clock;
  }

  /**
   * Makes volume {@code name} of {@code sizeGi} GiB, on {@code worker} when given.
   *
   * @throws Refused for a worker that runs no qemu VMs, or a name taken
   */
  public VolumeRow create(String name, int sizeGi, String worker) {
    if (worker != null
        && workers.findById(worker).filter(w -> w.runtimes().contains("qemu")).isEmpty()) {
      throw new Refused("worker: no worker named " + worker + " runs the qemu runtime");
    }
    try {
      volumes.create(name, sizeGi, worker, clock.instant());
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw new Refused("volume '" + name + "' already exists");
      }
      throw e;
    }
    log.info(
        "volume {} created, {} GiB{}", name, sizeGi, worker == null ? "" : " on worker " + worker);
    return volumes.findHeld(name).orElseThrow(() -> new NotFound("volume", name));
  }

  /**
   * Deletes volume {@code name} and, at once if its worker answers (else at a later sweep), its
   * data there.
   *
   * @throws NotFound for no such volume
   * @throws Refused while a VM mounts it
   */
  public void delete(String name) {
    VolumeRow volume = volumes.findHeld(name).orElseThrow(() -> new NotFound("volume", name));
    if (volumes.deleteIfFree(name) == 0) {
      throw new Refused(
          "volume '"
              + name
              + "' is mounted by VM "
              + volumes.findHeld(name).map(VolumeRow::vm).orElse("(gone meanwhile)")
              + ": delete that VM first (the volume stays)");
    }
    if (volume.worker() != null) {
      disks.deleteNow(volume.worker(), volume.volumeId());
    }
    log.info("volume {} deleted", name);
  }
}
