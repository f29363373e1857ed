package dev.rota.core.scheduling;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.Spread;
import dev.rota.core.model.SpreadShares;
import dev.rota.core.model.VmStatus;
import dev.rota.core.scheduling.placement.PlacementStack;
import dev.rota.core.scheduling.placement.Ranker;
import dev.rota.core.scheduling.placement.WorkerClasses;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which running replicas of VM sets to move, and where, once a term's placements are made: the
 * fewest moves that bring the cluster to balance, each of which mends something, chosen greedily in
 * two passes.
 *
 * <ol>
 *   <li><b>Spreads</b> (every profile): a {@code distinct-workers} set with two replicas on one
 *       worker (its spread was changed), a label spread whose per-value counts are more than one
 *       apart (a worker with a new value of the label joined), are mended replica by replica; each
 *       moves to the worker the profile's ranker prefers.
 *   <li><b>Load</b> (under {@code distribute-load}): a replica moves from the fullest worker to the
 *       emptiest while that leaves the target less full than the source was; for equal VMs on equal
 *       workers, while their counts differ by two or more, which ends with the counts at most one
 *       apart after exactly the moves needed (go-orchestrator's lower bound). Of the source's
 *       replicas the one whose set is most crowded there, compared with the target, goes first, so
 *       that each set also tends to its fair share per worker.
 * </ol>
 *
 * <p>A move places the replica's next generation on the target while its running task stays until
 * the new one has started, so a move takes nothing away unless the new copy fails. That risk is
 * what a set's {@code maxUnavailable} bounds: a set never has more moves under way than {@code
 * maxUnavailable} less the replicas it already lacks. A move also never breaks its set's spread, a
 * feasibility check, an avoidance or the room on the target, and one term starts no more than its
 * budget. Replicas on workers that take no placements (paused, not ready) stay where they are:
 * taking work off them is draining, not balancing.
 */
public final class Rebalancer {
  /** Fullness compared within this counts as equal: sums of fractions are not exact. */
  private static final double EPSILON = 1e-9;

  private Rebalancer() {}

  /**
   * @param workers every worker, with the kinds of VM each may take
   * @param holdings what every worker holds after this term's placements, a moving replica's new
   *     copy among them
   * @param leaving the old copies of moving replicas: they hold room until the new copy starts, and
   *     count for neither load nor spread
   * @param vms every VM
   * @param runsOn the worker each VM's current task is running on, by VM; a VM absent here is not
   *     running
   */
  public static List<Move> plan(
      WorkerClasses workers,
      List<Holding> holdings,
      List<Holding> leaving,
      List<VmSnapshot> vms,
      Map<String, String> runsOn,
      Rebalancing rebalancing,
      SchedulerProfile profile) {
    if (!rebalancing.active()) {
      return List.of();
    }
    return new Run(workers, holdings, leaving, vms, runsOn, rebalancing, profile).run();
  }

  /**
   * A worker during one run. {@code leaving} is held until a move's new copy starts, but is on its
   * way out.
   */
  private static final class Node {
    final Candidate worker;
    final long[] capacity;
    final long[] allocated;
    final long[] leaving;
    final List<Replica> replicas = new ArrayList<>();
    int vms;
    double fullness;

    Node(Candidate worker, long[] capacity) {
      this.worker = worker;
      this.capacity = capacity;
      this.allocated = new long[capacity.length];
      this.leaving = new long[capacity.length];
    }

    void refresh() {
      long[] staying = new long[capacity.length];
      for (int r = 0; r < capacity.length; r++) {
        staying[r] = Resources.flooredSubtract(allocated[r], leaving[r]);
      }
      fullness = Resources.fullness(staying, capacity);
    }

    String name() {
      return worker.name();
    }
  }

  /**
   * A running replica that may move: as placement would see it, its class, and what it asks for.
   */
  private record Replica(
      VmSnapshot vm, PendingVm asPending, WorkerClasses.WorkerClass cls, long[] request) {
    String set() {
      return vm.set();
    }
  }

  private static final class Run {
    private final Rebalancing rebalancing;
    private final SchedulerProfile profile;
    private final ResourceIndex resources = new ResourceIndex();
    private final Map<String, Node> nodes = new TreeMap<>();
    private final List<Node> targets = new ArrayList<>();

    /** Replicas of each set on each worker, moves counted as done. */
    private final Map<String, Map<String, Integer>> perSet = new HashMap<>();

    private final Map<String, Spread> spreads = new TreeMap<>();

    /**
     * The class of the first replica of each set that may move: whose workers a label spread counts
     * over.
     */
    private final Map<String, WorkerClasses.WorkerClass> classOfSet = new HashMap<>();

    /** How many more moves each set may have under way. */
    private final Map<String, Integer> allowance = new HashMap<>();

    private final Comparator<Node> ranked;
    private final List<Move> moves = new ArrayList<>();
    private int budget;

    Run(
        WorkerClasses workers,
        List<Holding> holdings,
        List<Holding> leaving,
        List<VmSnapshot> vms,
        Map<String, String> runsOn,
        Rebalancing rebalancing,
        SchedulerProfile profile) {
      this.rebalancing = rebalancing;
      this.profile = profile;
      this.budget = rebalancing.movesPerTerm();
      Ranker ranker = Ranker.of(profile);
      Comparator<Node> byFullness = (a, b) -> ranker.compare(a.fullness, b.fullness);
      this.ranked = byFullness.thenComparing(Node::name);
      workers.workers().forEach(w -> w.capacity().keySet().forEach(resources::add));
      holdings.forEach(h -> h.request().keySet().forEach(resources::add));
      leaving.forEach(h -> h.request().keySet().forEach(resources::add));
      vms.forEach(v -> v.request().keySet().forEach(resources::add));
      for (Candidate w : workers.workers()) {
        Node n = new Node(w, resources.vector(w.capacity()));
        nodes.put(w.name(), n);
        if (w.takesPlacements()) {
          targets.add(n);
        }
      }
      for (Holding h : holdings) {
        Node n = nodes.get(h.worker());
        if (n == null) {
          continue;
        }
        add(n.allocated, resources.vector(h.request()));
        n.vms++;
        if (h.set() != null) {
          counted(h.set(), h.worker(), 1);
        }
      }
      for (Holding h : leaving) {
        Node n = nodes.get(h.worker());
        if (n != null) {
          long[] request = resources.vector(h.request());
          add(n.allocated, request);
          add(n.leaving, request);
        }
      }
      nodes.values().forEach(Node::refresh);
      allowance.putAll(SetAllowances.of(vms, rebalancing.sets()));
      vms.stream()
          .filter(v -> v.set() != null)
          .forEach(v -> spreads.putIfAbsent(v.set(), v.spread()));
      for (VmSnapshot vm : vms) {
        String on = runsOn.get(vm.name());
        Node n = on == null ? null : nodes.get(on);
        if (n != null && n.worker.takesPlacements() && movable(vm)) {
          PendingVm asPending = vm.asPending();
          WorkerClasses.WorkerClass cls = workers.of(asPending);
          n.replicas.add(new Replica(vm, asPending, cls, resources.vector(vm.request())));
          classOfSet.putIfAbsent(vm.set(), cls);
        }
      }
      nodes
          .values()
          .forEach(
              n -> n.replicas.sort(Comparator.comparing((Replica r) -> r.vm().name()).reversed()));
    }

    private boolean movable(VmSnapshot vm) {
      return vm.set() != null
          && rebalancing.sets().containsKey(vm.set())
          && vm.status() == VmStatus.RUNNING
          // A disk copied only at rest stays where it is, and so does its VM; one that moves
          // live takes its disk along.
          && (!vm.persistentDisk() || vm.liveMigration())
          && !vm.moveUnderWay();
    }

    List<Move> run() {
      for (Map.Entry<String, Spread> e : spreads.entrySet()) {
        if (!rebalancing.sets().containsKey(e.getKey())) {
          continue;
        }
        if (e.getValue() instanceof Spread.DistinctWorkers) {
          mendDistinct(e.getKey());
        } else if (e.getValue() instanceof Spread.ByLabel byLabel) {
          mendLabelSpread(e.getKey(), byLabel);
        }
      }
      if (profile == SchedulerProfile.DISTRIBUTE_LOAD) {
        balanceLoad();
      }
      return moves;
    }

    // ---- pass 1: spreads ----

    private void mendDistinct(String set) {
      for (Map.Entry<String, Integer> e :
          new TreeMap<>(perSet.getOrDefault(set, Map.of())).entrySet()) {
        Node from = nodes.get(e.getKey());
        for (Replica r : replicasOf(set, from)) {
          if (on(set, from.name()) <= 1 || !mayMove(set)) {
            break;
          }
          Node to = best(r, from, n -> true);
          if (to != null) {
            move(
                r,
                from,
                to,
                "distinct-workers: worker "
                    + from.name()
                    + " runs "
                    + on(set, from.name())
                    + " replicas of set "
                    + set);
          }
        }
      }
    }

    /**
     * Moves replicas of {@code set} from the value of the spread's label furthest above its share
     * to the one furthest below, while they are more than one replica apart ({@link
     * SpreadShares#mend}): for an even spread, while two values' counts differ by two or more.
     */
    private void mendLabelSpread(String set, Spread.ByLabel spread) {
      String key = spread.key();
      while (mayMove(set)) {
        Map<String, Integer> perValue = perValue(set, key, classOfSet.get(set));
        if (perValue.size() < 2) {
          return;
        }
        Optional<SpreadShares.Move> move = SpreadShares.of(spread, perValue).mend();
        if (move.isEmpty() || !mendOne(set, key, move.get().from(), move.get().to(), perValue)) {
          return;
        }
      }
    }

    /**
     * Moves one replica of {@code set} from a worker labelled {@code most} to one labelled {@code
     * fewest}.
     */
    private boolean mendOne(
        String set, String key, String most, String fewest, Map<String, Integer> perValue) {
      for (Map.Entry<String, Integer> e :
          new TreeMap<>(perSet.getOrDefault(set, Map.of())).entrySet()) {
        Node from = nodes.get(e.getKey());
        if (e.getValue() <= 0 || !most.equals(from.worker.labels().get(key))) {
          continue;
        }
        for (Replica r : replicasOf(set, from)) {
          Node to = best(r, from, n -> fewest.equals(n.worker.labels().get(key)));
          if (to != null) {
            move(
                r,
                from,
                to,
                "spread over label " + key + ": replicas of set " + set + " per value " + perValue);
            return true;
          }
        }
      }
      return false;
    }

    /**
     * Replicas of {@code set} per value of {@code key}, over the workers the set's VMs may go to.
     */
    private Map<String, Integer> perValue(String set, String key, WorkerClasses.WorkerClass cls) {
      Map<String, Integer> counts = new TreeMap<>();
      if (cls == null) {
        return counts;
      }
      for (Candidate w : cls.members()) {
        String value = w.labels().get(key);
        if (value != null) {
          counts.merge(value, on(set, w.name()), Integer::sum);
        }
      }
      return counts;
    }

    // ---- pass 2: load ----

    private void balanceLoad() {
      Comparator<Node> fullestFirst =
          Comparator.comparingDouble((Node n) -> n.fullness).reversed().thenComparing(Node::name);
      Comparator<Node> emptiestFirst =
          Comparator.comparingDouble((Node n) -> n.fullness).thenComparing(Node::name);
      TreeSet<Node> sources = new TreeSet<>(fullestFirst);
      TreeSet<Node> sinks = new TreeSet<>(emptiestFirst);
      sinks.addAll(targets);
      targets.stream().filter(n -> !n.replicas.isEmpty()).forEach(sources::add);
      double[] mostCapacity = mostCapacity();
      while (budget > 0 && !sources.isEmpty()) {
        Node from = sources.first();
        double leastAdded = leastAdded(from, mostCapacity);
        Replica chosen = null;
        Node to = null;
        for (Node sink : sinks) {
          if (sink.fullness + leastAdded >= from.fullness - EPSILON) {
            break; // no emptier worker is left: nothing taken from here would leave it less full
          }
          chosen = pick(from, sink);
          if (chosen != null) {
            to = sink;
            break;
          }
        }
        sources.remove(from);
        if (chosen == null) {
          continue; // nothing on the fullest worker may go anywhere emptier: the next fullest
        }
        sinks.remove(from);
        sinks.remove(to);
        boolean toWasSource = sources.remove(to);
        move(
            chosen,
            from,
            to,
            "distribute-load: worker "
                + from.name()
                + " holds "
                + from.vms
                + " VMs, "
                + to.name()
                + " "
                + to.vms);
        sinks.add(from);
        sinks.add(to);
        if (!from.replicas.isEmpty()) {
          sources.add(from);
        }
        if (toWasSource) {
          sources.add(to);
        }
      }
    }

    /**
     * The replica of {@code from} that would leave {@code to} less full than {@code from} is and
     * may go there, the one whose set is most crowded on {@code from} compared with {@code to}
     * first; null if none.
     */
    private Replica pick(Node from, Node to) {
      Replica best = null;
      int bestCrowding = Integer.MIN_VALUE;
      for (Replica r : from.replicas) {
        if (!mayMove(r.set())
            || to.fullness + Resources.fullness(r.request(), to.capacity) >= from.fullness - EPSILON
            || !mayGo(r, from, to)) {
          continue;
        }
        int crowding = on(r.set(), from.name()) - on(r.set(), to.name());
        if (crowding > bestCrowding) {
          best = r;
          bestCrowding = crowding;
        }
      }
      return best;
    }

    /** The most any target offers of each resource: what makes a request count least. */
    private double[] mostCapacity() {
      double[] most = new double[resources.size()];
      for (Node n : targets) {
        for (int r = 0; r < most.length; r++) {
          most[r] = Math.max(most[r], n.capacity[r]);
        }
      }
      return most;
    }

    /** A lower bound of the fullness any of the worker's replicas would add to any target. */
    private static double leastAdded(Node from, double[] mostCapacity) {
      double least = Double.MAX_VALUE;
      for (Replica r : from.replicas) {
        double d = 0;
        for (int i = 0; i < mostCapacity.length; i++) {
          if (mostCapacity[i] > 0) {
            d += r.request()[i] / mostCapacity[i];
          }
        }
        least = Math.min(least, d);
      }
      return least;
    }

    // ---- shared ----

    /**
     * The worker the profile's ranker prefers among those {@code r} may go to that {@code also}
     * admits.
     */
    private Node best(Replica r, Node from, java.util.function.Predicate<Node> also) {
      Node best = null;
      for (Node n : targets) {
        if (also.test(n) && mayGo(r, from, n) && (best == null || ranked.compare(n, best) < 0)) {
          best = n;
        }
      }
      return best;
    }

    /**
     * Whether the replica may run on {@code to} instead of {@code from}, with its old copy still
     * there.
     */
    private boolean mayGo(Replica r, Node from, Node to) {
      return to != from
          && r.cls().admits(to.name())
          && !r.cls().reluctant(to.name())
          && PlacementStack.AVOIDS.admits(to.name(), r.asPending())
          && fits(to, r.request())
          && spreadAllows(r, from, to);
    }

    /**
     * Whether the set's spread allows the move: {@code distinct-workers}, if the target holds none
     * of it; a label spread, within one value, or towards a value at least one replica further
     * below its share than the one it leaves (for an even spread, one holding fewer).
     */
    private boolean spreadAllows(Replica r, Node from, Node to) {
      Spread spread = r.vm().spread();
      if (spread instanceof Spread.DistinctWorkers) {
        return on(r.set(), to.name()) == 0;
      }
      if (spread instanceof Spread.ByLabel byLabel) {
        String there = to.worker.labels().get(byLabel.key());
        String here = from.worker.labels().get(byLabel.key());
        if (there == null || there.equals(here)) {
          return there != null;
        }
        Map<String, Integer> perValue = perValue(r.set(), byLabel.key(), r.cls());
        return SpreadShares.of(byLabel, perValue).allows(here, there);
      }
      return true;
    }

    private static boolean fits(Node to, long[] request) {
      for (int r = 0; r < request.length; r++) {
        if (request[r] > Resources.flooredSubtract(to.capacity[r], to.allocated[r])) {
          return false;
        }
      }
      return true;
    }

    private List<Replica> replicasOf(String set, Node n) {
      return n.replicas.stream().filter(r -> set.equals(r.set())).toList();
    }

    private boolean mayMove(String set) {
      return budget > 0 && allowance.getOrDefault(set, 0) > 0;
    }

    private void move(Replica r, Node from, Node to, String why) {
      from.replicas.remove(r);
      add(from.leaving, r.request());
      from.vms--;
      from.refresh();
      add(to.allocated, r.request());
      to.vms++;
      to.refresh();
      counted(r.set(), from.name(), -1);
      counted(r.set(), to.name(), 1);
      allowance.merge(r.set(), -1, Integer::sum);
      budget--;
      moves.add(
          new Move(
              r.vm().name(), r.vm().seq(), r.vm().restartCount(), from.name(), to.name(), why));
    }

    private int on(String set, String worker) {
      return perSet.getOrDefault(set, Map.of()).getOrDefault(worker, 0);
    }

    private void counted(String set, String worker, int delta) {
      perSet.computeIfAbsent(set, s -> new HashMap<>()).merge(worker, delta, Integer::sum);
    }

    private static void add(long[] sum, long[] amounts) {
      for (int r = 0; r < sum.length; r++) {
        sum[r] = Resources.saturatingAdd(sum[r], amounts[r]);
      }
    }
  }
}
