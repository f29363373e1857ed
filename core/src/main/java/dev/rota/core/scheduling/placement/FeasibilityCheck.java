package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.Map;
import java.util.TreeMap;

/**
 * One reason a worker may not take a VM that does not depend on what the worker holds (in the
 * manner of Nomad's {@code scheduler/feasible} checkers): decided once per worker for each class of
 * VMs alike in runtime, labels and constraints ({@link WorkerClasses}), in the order of {@link
 * PlacementStack#CHECKS}. Each check records what it saw in its {@link Tally}, and says from that
 * tally why no worker passed it.
 */
public interface FeasibilityCheck {
  /** Whether {@code worker} may take VMs like {@code vm}; notes in {@code tally} what it saw. */
  boolean admits(Candidate worker, PendingVm vm, Tally tally);

  /**
   * This check for VMs like {@code vm}, with what does not depend on the worker worked out once (a
   * constraint's regular expression compiled), to be run over every worker.
   */
  default Prepared prepare(PendingVm vm) {
    return (worker, tally) -> admits(worker, vm, tally);
  }

  /** A check made ready for one kind of VM. */
  @FunctionalInterface
  interface Prepared {
    /** As {@link FeasibilityCheck#admits}, for the kind of VM it was made for. */
    boolean admits(Candidate worker, Tally tally);
  }

  /** Why no ready worker that reached this check passed it, read from {@code tally}. */
  default String whyNone(PendingVm vm, Tally tally) {
    return whyNone(vm, tally, Workers.READY);
  }

  /** Why none of {@code workers} that reached this check passed it, read from {@code tally}. */
  String whyNone(PendingVm vm, Tally tally, Workers workers);

  /**
   * Which workers a reason speaks of, in its words: the ready ones (a VM waiting for this term), or
   * any of the cluster's ({@link FitsNowhere}).
   *
   * @param none no worker of them: "no ready worker"
   * @param every every one of them: "every ready worker"
   */
  record Workers(String none, String every) {
    public static final Workers READY = new Workers("no ready worker", "every ready worker");
    public static final Workers ANY = new Workers("none", "every one");
  }

  /** What one check saw of the workers that reached it, for one class of VMs. */
  final class Tally {
    private int reached;
    private int admitted;
    private final Map<String, Integer> counts = new TreeMap<>();
    private final boolean counting;

    public Tally() {
      this(true);
    }

    private Tally(boolean counting) {
      this.counting = counting;
    }

    /** A tally that counts no reasons: for a pass that asks only which workers pass. */
    public static Tally uncounted() {
      return new Tally(false);
    }

    public void reached() {
      reached++;
    }

    public void admitted() {
      admitted++;
    }

    public int reachedCount() {
      return reached;
    }

    /** How many of the workers that reached the check it let through. */
    public int admittedCount() {
      return admitted;
    }

    public void count(String what) {
      if (counting) {
        counts.merge(what, 1, Integer::sum);
      }
    }

    public int count0(String what) {
      return counts.getOrDefault(what, 0);
    }

    public Map<String, Integer> counts() {
      return counts;
    }
  }
}
