package dev.rota.core.scheduling.placement;

import dev.rota.core.model.LabelConstraint;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;

/**
 * A VM goes only to a worker whose labels meet every one of its constraints ({@link
 * LabelConstraint}: {@code =}, {@code !=}, {@code in}, {@code notIn}, {@code exists}, {@code
 * notExists}, {@code regexp}, {@code version}). Each constraint a worker fails is counted, so that
 * a VM that waits is told which one no worker met, or which one most failed.
 */
public final class MeetsConstraints implements FeasibilityCheck {
  @Override
  public boolean admits(Candidate worker, PendingVm vm, Tally tally) {
    boolean all = true;
    for (LabelConstraint c : vm.constraints()) {
      if (!c.admits(worker.labels())) {
        tally.count(c.toString());
        all = false;
      }
    }
    return all;
  }

  @Override
  public String whyNone(PendingVm vm, Tally tally) {
    return "no ready worker meets " + unmet(vm, tally);
  }

  /**
   * The constraint that kept most workers out, with how many of how many it did: {@code zone in [a,
   * b] (3 of 4 workers fail it)}.
   */
  static String unmet(PendingVm vm, Tally tally) {
    LabelConstraint worst = vm.constraints().get(0);
    for (LabelConstraint c : vm.constraints()) {
      if (tally.count0(c.toString()) > tally.count0(worst.toString())) {
        worst = c;
      }
    }
    return worst
        + " ("
        + tally.count0(worst.toString())
        + " of "
        + tally.reachedCount()
        + " failing it)";
  }
}
