package dev.rota.scheduler.term;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.Spread;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PlacedTask;
import dev.rota.core.scheduling.VmSnapshot;
import dev.rota.core.scheduling.WorkerProbeState;
import dev.rota.core.scheduling.WorkerSnapshot;
import dev.rota.store.VmRow;
import dev.rota.store.VmSchedulingRow;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerProbeRow;
import dev.rota.store.WorkerRow;
import java.util.Map;

/** Rows of the store as the scheduling core's snapshot types. */
final class Snapshots {
  private Snapshots() {}

  static WorkerHealth health(WorkerRow w) {
    return health(w.health());
  }

  private static WorkerHealth health(String stored) {
    return WireName.parse(WorkerHealth.class, stored).orElse(WorkerHealth.NOT_READY);
  }

  static WorkerProbeState probeState(WorkerProbeRow w) {
    return probeState(w, 0);
  }

  /**
   * @param taskFailures tasks failed on it lately, as {@code WorkerRepository.taskFailuresSince}
   *     counts them
   */
  static WorkerProbeState probeState(WorkerProbeRow w, int taskFailures) {
    return new WorkerProbeState(
        w.name(),
        health(w.health()),
        w.lastSeen() != null ? w.lastSeen() : w.createdAt(),
        w.lastProbeAt(),
        w.lastProbeOk(),
        w.probeFailures(),
        w.lastProbeError(),
        w.flakyUntil(),
        taskFailures);
  }

  /**
   * @param images what its agent holds, by image, with when each was last used
   */
  static WorkerSnapshot worker(
      WorkerRow w, int taskFailures, Map<String, java.time.Instant> images) {
    Candidate c =
        new Candidate(
            w.name(),
            w.resources(),
            w.labels(),
            w.runtimes(),
            health(w),
            w.schedulingPaused(),
            images);
    return new WorkerSnapshot(
        c, probeState(w.probeRow(), taskFailures), w.healthMessage(), w.drainDeadline());
  }

  /**
   * A VM as the core sees it at {@code now}: an avoidance that has run out is no longer one; a
   * replica spreads as its set asks now ({@code spreads}, by set).
   */
  static VmSnapshot vm(VmRow v, java.time.Instant now) {
    return vm(v.scheduling(), now, Map.of());
  }

  static VmSnapshot vm(VmSchedulingRow v, java.time.Instant now, Map<String, Spread> spreads) {
    String avoid = v.avoidUntil() != null && now.isBefore(v.avoidUntil()) ? v.avoidWorker() : null;
    Spread spread = v.vmSet() == null ? Spread.NONE : spreads.getOrDefault(v.vmSet(), Spread.NONE);
    return VmSnapshot.builder(v.name(), v.seq(), v.runtime(), v.resources())
        .labels(v.labels())
        .status(status(v))
        .restartCount(v.restartCount())
        .avoidWorker(avoid)
        .set(v.vmSet())
        .spread(spread)
        .failedOn(v.failedOn())
        .movingFrom(v.movingFrom())
        .image(v.image())
        .restartPolicy(
            WireName.parse(RestartPolicy.class, v.restartPolicy()).orElse(RestartPolicy.NEVER))
        .oldCopyOn(v.oldCopyOn())
        .keepsThroughDisconnect(v.keepsThroughDisconnect())
        .awaitingReadiness(v.awaitingReadiness())
        .persistentDisk(v.persistentDisk())
        .diskOn(v.diskOn())
        .liveMigration(v.liveMigration())
        .taskName(v.taskName())
        .priority(v.priority())
        .evicted(v.evicted())
        .constraints(v.constraints())
        .tolerations(v.tolerations())
        .affinities(v.affinities())
        .namespace(v.namespace())
        .diskSizeGi(v.diskSizeGi())
        .build();
  }

  static PlacedTask task(VmTaskRow t) {
    return new PlacedTask(
        t.vm(),
        t.vmSeq(),
        t.generation(),
        t.worker(),
        WireName.parse(TaskState.class, t.state()).orElse(TaskState.LOST),
        t.taskName());
  }

  static VmStatus status(VmSchedulingRow v) {
    return WireName.parse(VmStatus.class, v.status()).orElse(VmStatus.PENDING);
  }
}
