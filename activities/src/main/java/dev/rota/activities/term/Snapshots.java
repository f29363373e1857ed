package dev.rota.activities.term;

import dev.rota.scheduling.Candidate;
import dev.rota.scheduling.PlacedVm;
import dev.rota.scheduling.VmSnapshot;
import dev.rota.scheduling.WorkerProbeState;
import dev.rota.scheduling.WorkerSnapshot;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.model.VmStatus;
import dev.rota.workflows.model.WireName;
import dev.rota.workflows.model.WorkerHealth;

/** Rows of the store as the scheduling core's snapshot types. */
final class Snapshots {
  private Snapshots() {}

  static WorkerHealth health(WorkerRow w) {
    return WireName.parse(WorkerHealth.class, w.health()).orElse(WorkerHealth.NOT_READY);
  }

  static WorkerProbeState probeState(WorkerRow w) {
    return new WorkerProbeState(
        w.name(),
        health(w),
        w.lastSeen() != null ? w.lastSeen() : w.createdAt(),
        w.lastProbeAt(),
        w.lastProbeOk(),
        w.probeFailures(),
        w.lastProbeError(),
        w.flakyUntil());
  }

  static WorkerSnapshot worker(WorkerRow w) {
    Candidate c = new Candidate(w.name(), w.resources(), w.labels(), w.runtimes(), health(w), w.schedulingPaused());
    return new WorkerSnapshot(c, probeState(w), w.healthMessage());
  }

  /** A VM as the core sees it at {@code now}: an avoidance that has run out is no longer one. */
  static VmSnapshot vm(VmRow v, java.time.Instant now) {
    String avoid = v.avoidUntil() != null && now.isBefore(v.avoidUntil()) ? v.avoidWorker() : null;
    return new VmSnapshot(
        v.name(),
        v.seq(),
        v.runtime(),
        v.resources(),
        v.labels(),
        status(v),
        v.statusMessage(),
        v.worker(),
        v.restartCount(),
        avoid);
  }

  /** The VM as reconciliation sees it; null when it is on no worker. */
  static PlacedVm placed(VmRow v) {
    return v.worker() == null ? null : new PlacedVm(v.name(), status(v), v.worker(), v.restartCount());
  }

  static VmStatus status(VmRow v) {
    return WireName.parse(VmStatus.class, v.status()).orElse(VmStatus.PENDING);
  }
}
