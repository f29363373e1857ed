package dev.rota.core.scheduling.placement;

import dev.rota.agentapi.Taint;
import dev.rota.agentapi.Toleration;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.List;
import java.util.Map;

/**
 * A VM goes only to a worker whose {@code NoSchedule} taints it tolerates ({@link Taint}, {@link
 * Toleration}). Each taint that keeps it off a worker is counted, so that a VM that waits is told
 * which one, on how many workers. ({@code PreferNoSchedule} taints rank a worker last instead:
 * {@link WorkerClasses.WorkerClass#reluctant}.)
 */
public final class ToleratesTaints implements FeasibilityCheck {
  @Override
  public boolean admits(Candidate worker, PendingVm vm, Tally tally) {
    List<Taint> repelling =
        Toleration.untolerated(vm.tolerations(), worker.taints(), Taint.NO_SCHEDULE);
    repelling.forEach(t -> tally.count(t.toString()));
    return repelling.isEmpty();
  }

  @Override
  public String whyNone(PendingVm vm, Tally tally, Workers workers) {
    return workers.every()
        + " that could take it has a taint it does not tolerate: "
        + worst(tally);
  }

  /**
   * The taint that kept most workers out, with how many of how many: {@code gpu:NoSchedule (3 of 4
   * workers)}.
   */
  static String worst(Tally tally) {
    Map.Entry<String, Integer> worst = null;
    for (Map.Entry<String, Integer> e : tally.counts().entrySet()) {
      if (worst == null || e.getValue() > worst.getValue()) {
        worst = e;
      }
    }
    return worst.getKey() + " (" + worst.getValue() + " of " + tally.reachedCount() + " workers)";
  }
}
