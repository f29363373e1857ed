package dev.rota.core.scheduling.placement;

import dev.rota.core.model.LabelConstraint;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A VM goes only to a worker whose labels meet every one of its constraints ({@link
 * LabelConstraint}: {@code =}, {@code !=}, {@code in}, {@code notIn}, {@code exists}, {@code
 * notExists}, {@code regexp}, {@code version}). Each constraint a worker fails is counted, so that
 * a VM that waits is told which one no worker met, or which one most failed.
 */
public final class MeetsConstraints implements FeasibilityCheck {
  @Override
  public boolean admits(Candidate worker, PendingVm vm, Tally tally) {
    return prepare(vm).admits(worker, tally);
  }

  /** Each constraint compiled and named once, for every worker it is then run over. */
  @Override
  public Prepared prepare(PendingVm vm) {
    List<LabelConstraint> constraints = vm.constraints();
    if (constraints.isEmpty()) {
      return (worker, tally) -> true;
    }
    List<Predicate<Map<String, String>>> compiled = new ArrayList<>(constraints.size());
    List<String> names = new ArrayList<>(constraints.size());
    for (LabelConstraint c : constraints) {
      compiled.add(c.compiled());
      names.add(c.toString());
    }
    return (worker, tally) -> {
      boolean all = true;
      for (int i = 0; i < compiled.size(); i++) {
        if (!compiled.get(i).test(worker.labels())) {
          tally.count(names.get(i));
          all = false;
        }
      }
      return all;
    };
  }

  @Override
  public String whyNone(PendingVm vm, Tally tally, Workers workers) {
    return workers.none() + " meets " + unmet(vm, tally);
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
