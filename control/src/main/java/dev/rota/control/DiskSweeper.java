package dev.rota.control;

import dev.rota.agentapi.HeldDisk;
import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the persistent disks workers still hold for VMs that are gone, and the volumes they hold
 * that are deleted or held elsewhere. A VM's deletion deletes its disk, waiting for the disk's
 * worker; it goes on without it only once that worker is removed. A removed worker that registers
 * again under its name may then hold a disk no VM has: each host looks at every {@code qemu}
 * worker's disks now and then, and deletes those.
 */
@Singleton
public class DiskSweeper {
  private static final Logger log = LoggerFactory.getLogger(DiskSweeper.class);

  /** How often a host looks. */
  public static final Duration EVERY = Duration.ofMinutes(10);

  private final WorkerRepository workers;
  private final VmRepository vms;
  private final dev.rota.store.VolumeRepository volumes;
  private final AgentClient agents;
  private final AgentCallSettings agentCalls;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("disk-sweeper"));

  public DiskSweeper(
      WorkerRepository workers,
      VmRepository vms,
      AgentClient agents,
      AgentCallSettings agentCalls,
      dev.rota.store.VolumeRepository volumes) {
    this.workers = workers;
    this.vms = vms;
    this.volumes = volumes;
    this.agents = agents;
    this.agentCalls = agentCalls;
  }

  /**
   * The disks {@code worker} holds that no VM has: the disk's VM submission is gone, the VM has
   * neither a persistent disk nor saved memory (nor memory being saved), or its disk is on another
   * worker. A VM whose disk has no worker yet keeps any disk of its: it is being placed.
   */
  static List<HeldDisk> orphans(
      String worker,
      List<HeldDisk> held,
      Function<String, Optional<VmRow>> vm,
      Function<String, Optional<dev.rota.store.VolumeRow>> volume) {
    return held.stream()
        .filter(
            d -> {
              if (d.volume()) {
                return orphanVolume(worker, d, vm, volume);
              }
              Optional<VmRow> row = vm.apply(d.vm());
              if (row.isEmpty() || row.get().seq() != d.submission()) {
                return true;
              }
              dev.rota.store.VmPlacementNotes notes = row.get().notes();
              if (worker.equals(notes.diskFrom())) {
                return false; // its next task copies it from here: kept until that task runs
              }
              boolean kept =
                  row.get().spec().persistentDisk()
                      || notes.memorySaved()
                      // its memory being saved, and noted once it is
                      || dev.rota.core.model.VmStatus.SUSPENDING
                          .wireName()
                          .equals(row.get().state().status());
              return !kept || notes.diskOn() != null && !notes.diskOn().equals(worker);
            })
        .toList();
  }

  /**
   * A volume {@code worker} holds is no volume's when the volume is gone (or made again under its
   * name since), or when it is held elsewhere now; the copy a moving VM's next task takes is kept.
   */
  private static boolean orphanVolume(
      String worker,
      HeldDisk d,
      Function<String, Optional<VmRow>> vm,
      Function<String, Optional<dev.rota.store.VolumeRow>> volume) {
    Optional<dev.rota.store.VolumeRow> row = volume.apply(d.vm());
    if (row.isEmpty() || row.get().seq() != d.submission()) {
      return true;
    }
    String mountedBy = row.get().vm();
    if (mountedBy != null
        && vm.apply(mountedBy).filter(v -> worker.equals(v.notes().diskFrom())).isPresent()) {
      return false;
    }
    return row.get().worker() != null && !row.get().worker().equals(worker);
  }

  /** Looks at every {@code qemu} worker's disks once; returns how many were deleted. */
  public int sweepOnce() {
    int deleted = 0;
    for (WorkerRow w : workers.findAll()) {
      if (!w.runtimes().contains("qemu")) {
        continue;
      }
      try {
        for (HeldDisk d :
            orphans(
                w.name(),
                agents.disks(w.agent(), agentCalls.timeout()),
                vms::findById,
                volumes::findHeld)) {
          agents.deleteDisk(w.agent(), d.id(), agentCalls.timeout());
          log.info("deleted disk {} on worker {}: no VM has it", d.id(), w.name());
          deleted++;
        }
      } catch (RuntimeException e) {
        log.debug("could not look at worker {}'s disks: {}", w.name(), e.toString());
      }
    }
    return deleted;
  }

  /**
   * Deletes disk or volume {@code id} on {@code worker} now; should the worker not answer, a later
   * sweep does.
   */
  public void deleteNow(String worker, String id) {
    try {
      workers
          .findById(worker)
          .ifPresent(w -> agents.deleteDisk(w.agent(), id, agentCalls.timeout()));
    } catch (RuntimeException e) {
      log.debug("{} stays on worker {} until a sweep: {}", id, worker, e.toString());
    }
  }

  /** Sweeps every {@code every}, from {@code every} after now. */
  public void sweepEvery(Duration every) {
    timer.scheduleWithFixedDelay(
        () -> {
          try {
            sweepOnce();
          } catch (RuntimeException e) {
            log.debug("disk sweep: {}", e.toString());
          }
        },
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
  }
}
