package dev.rota.core.scheduling.placement;

import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.stream.Collectors;

/** Only a ready worker that is not paused takes placements. */
public final class ReadyAndUnpaused implements FeasibilityCheck {
  @Override
  public boolean admits(Candidate worker, PendingVm vm, Tally tally) {
    if (worker.takesPlacements()) {
      return true;
    }
    tally.count(
        worker.paused() && worker.health() == WorkerHealth.READY
            ? "paused"
            : worker.health().wireName());
    return false;
  }

  @Override
  public String whyNone(PendingVm vm, Tally tally, Workers workers) {
    if (tally.reachedCount() == 0) {
      return "no workers are registered";
    }
    return "no worker is ready and unpaused ("
        + tally.counts().entrySet().stream()
            .map(e -> e.getValue() + " " + e.getKey())
            .collect(Collectors.joining(", "))
        + ")";
  }
}
