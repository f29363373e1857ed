package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;

/** A worker runs only the runtimes its agent offers. */
public final class OffersRuntime implements FeasibilityCheck {
  @Override
  public boolean admits(Candidate worker, PendingVm vm, Tally tally) {
    return worker.runtimes().contains(vm.runtime());
  }

  @Override
  public String whyNone(PendingVm vm, Tally tally, Workers workers) {
    return workers.none() + " offers runtime " + vm.runtime();
  }
}
