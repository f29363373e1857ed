package dev.rota.core.scheduling.placement;

import dev.rota.core.model.Spread;
import dev.rota.core.model.SpreadShares;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.Holding;
import dev.rota.core.scheduling.PendingVm;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Where a set's replicas already are decides where its next one may go: {@code distinct-workers}
 * never puts two on one worker (Nomad's {@code distinct_hosts}); a label spread sends it to a value
 * of the label with the fewest replicas, so that the per-value counts stay within one of each other
 * (Kubernetes' topology spread, {@code maxSkew: 1}, {@code DoNotSchedule}), or with target shares,
 * to the value whose share is furthest from met ({@link Spread.ByLabel}). The values counted are
 * those of the workers the replica could go to otherwise (ready, unpaused, its runtime and labels),
 * room or not. Decided per replica, and counted as replicas are placed during one run.
 */
public final class SpreadsReplicas {
  /**
   * Replicas by set, then by worker: the live ones at the run's start, then this run's placements.
   */
  private final Map<String, Map<String, Integer>> bySet = new HashMap<>();

  public SpreadsReplicas(List<Holding> holdings) {
    for (Holding h : holdings) {
      if (h.set() != null) {
        placed(h.set(), h.worker());
      }
    }
  }

  /** One more replica of {@code set} on {@code worker}. */
  public void placed(String set, String worker) {
    bySet.computeIfAbsent(set, s -> new HashMap<>()).merge(worker, 1, Integer::sum);
  }

  /** How many replicas of {@code set} {@code worker} holds. */
  public int on(String set, String worker) {
    Map<String, Integer> counts = bySet.get(set);
    return counts == null ? 0 : counts.getOrDefault(worker, 0);
  }

  /**
   * Which of the workers {@code vm} could otherwise go to it may go to now, given where its set's
   * replicas are; null when its set does not spread (every one of them).
   */
  public Predicate<String> admits(PendingVm vm, List<Candidate> feasible) {
    if (!vm.spreads()) {
      return null;
    }
    if (vm.spread() instanceof Spread.ByLabel byLabel) {
      TreeSet<String> fewest = nextValues(vm.set(), byLabel, feasible);
      Map<String, String> valueOf = new HashMap<>();
      for (Candidate w : feasible) {
        String value = w.labels().get(byLabel.key());
        if (value != null) {
          valueOf.put(w.name(), value);
        }
      }
      return worker -> valueOf.containsKey(worker) && fewest.contains(valueOf.get(worker));
    }
    return worker -> on(vm.set(), worker) == 0;
  }

  /**
   * The values of the spread's label among {@code feasible} furthest below their share of the
   * replicas of {@code set} with the next counted: those with the fewest, for an even spread.
   */
  private TreeSet<String> nextValues(String set, Spread.ByLabel spread, List<Candidate> feasible) {
    Map<String, Integer> perValue = perValue(set, spread.key(), feasible);
    return SpreadShares.of(spread, perValue).next();
  }

  private Map<String, Integer> perValue(String set, String key, List<Candidate> feasible) {
    Map<String, Integer> perValue = new TreeMap<>();
    for (Candidate w : feasible) {
      String value = w.labels().get(key);
      if (value != null) {
        perValue.merge(value, on(set, w.name()), Integer::sum);
      }
    }
    return perValue;
  }

  /**
   * Why a replica that would otherwise fit waits: its spread allows none of the workers with room.
   */
  public String why(PendingVm vm, List<Candidate> feasible) {
    if (vm.spread() instanceof Spread.ByLabel byLabel) {
      Map<String, Integer> perValue = perValue(vm.set(), byLabel.key(), feasible);
      if (perValue.isEmpty()) {
        return "spread over label "
            + byLabel.key()
            + ": no worker it could go to carries that label";
      }
      TreeSet<String> fewest = nextValues(vm.set(), byLabel, feasible);
      String over =
          "spread over label "
              + byLabel.key()
              + (byLabel.targets().isEmpty() ? "" : " by targets " + byLabel.targets());
      if (fewest.isEmpty()) {
        return over + ": no worker it could go to carries a value with a share";
      }
      return over
          + ": replicas of set "
          + vm.set()
          + " per value "
          + perValue
          + "; the next goes to "
          + byLabel.key()
          + "="
          + String.join(" or ", fewest)
          + ", where no worker has room for it";
    }
    return "distinct-workers: every worker with room for it already runs a replica of set "
        + vm.set();
  }
}
