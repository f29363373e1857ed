package dev.rota.core.scheduling;

import dev.rota.core.model.Priority;
import dev.rota.core.model.VmStatus;
import dev.rota.core.scheduling.placement.PlacementStack;
import dev.rota.core.scheduling.placement.SpreadsReplicas;
import dev.rota.core.scheduling.placement.WorkerClasses;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Which running VMs a waiting VM of higher priority evicts to make room for itself, where the
 * cluster allows it (Nomad's preemption, Kubernetes' pod priority). Run after placement, over the
 * VMs it left waiting, highest priority first: a VM that would fit on some worker were it empty (it
 * does not fit nowhere) may evict, on one worker it may go to (ready, unpaused, its runtime, its
 * labels and constraints, not avoided, its disk's, its set's spread), running VMs
 *
 * <ul>
 *   <li>at least {@link Priority#PREEMPTION_GAP} below its own priority: VMs closer than that are
 *       peers, and peers never evict each other;
 *   <li>with a restart policy, so that they start again when room returns, and without a persistent
 *       disk (a dev box's disk and memory stay where they are);
 *   <li>not already moving, nor evicted;
 *   <li>of a set, no more than the set may have away ({@link SetAllowances}).
 * </ul>
 *
 * <p>On each worker the lowest priority go first, the largest first among equals, and then any that
 * turn out not to be needed are spared; of the workers, the one with the fewest evictions wins,
 * then the lowest priorities evicted, then the name. A waiting VM for which room is already being
 * freed (VMs leaving a worker, or evicted by an earlier term) evicts nothing more: it waits for
 * that room. What one eviction frees goes to the evicting VM first; what is left over may be a
 * later one's. The evicting VM is not placed in this term: the next term places it once its
 * victims' tasks are gone, before them, as it is ahead of them in the queue.
 */
public final class Preemptor {
  private Preemptor() {}

  /**
   * How many waiting VMs that found no room a run remembers; more would cost more than they save.
   */
  private static final int REMEMBERED = 32;

  /** A VM's current task, live on {@code worker}. */
  public record Running(VmSnapshot vm, String worker) {}

  /**
   * VM {@code vm}'s task of {@code generation} on {@code worker} is evicted for {@code forVm}, of
   * priority {@code forPriority}: its workflow starts it again once there is room.
   */
  public record Preemption(
      String vm,
      long seq,
      int generation,
      int priority,
      String worker,
      String forVm,
      int forPriority) {}

  /**
   * @param preemptions the evictions, in the order decided
   * @param reasons why each waiting VM that evicts, or waits for room being freed, waits, by name
   */
  public record Outcome(List<Preemption> preemptions, Map<String, String> reasons) {
    public static final Outcome NONE = new Outcome(List.of(), Map.of());
  }

  /**
   * @param workers every worker, with this term's health
   * @param holdings what every worker holds, this term's placements included
   * @param freeing what is held but on its way out: old copies being removed, VMs evicted by an
   *     earlier term whose tasks are not yet gone
   * @param running every VM's current live task
   * @param waiting the VMs placement left waiting that would fit some worker were it empty
   * @param allowances how many more replicas of each set may be away ({@link SetAllowances}); a set
   *     missing here has no bound
   */
  public static Outcome plan(
      List<Candidate> workers,
      List<Holding> holdings,
      List<Holding> freeing,
      List<Running> running,
      List<PendingVm> waiting,
      Map<String, Integer> allowances) {
    return plan(new WorkerClasses(workers), holdings, freeing, running, waiting, allowances);
  }

  /** As {@link #plan(List, List, List, List, List, Map)}, over a term's classes of workers. */
  public static Outcome plan(
      WorkerClasses workers,
      List<Holding> holdings,
      List<Holding> freeing,
      List<Running> running,
      List<PendingVm> waiting,
      Map<String, Integer> allowances) {
    if (waiting.isEmpty()) {
      return Outcome.NONE;
    }
    Run run = new Run(workers, holdings, freeing, running, allowances);
    return run.idle()
        ? Outcome.NONE
        : run.run(waiting.stream().sorted(PendingVm.QUEUE_ORDER).toList());
  }

  /** Whether a VM may be evicted for one of high enough priority. */
  static boolean evictable(VmSnapshot vm) {
    return vm.replaceable()
        && !vm.moveUnderWay()
        && !vm.evicted()
        && (vm.status() == VmStatus.RUNNING || vm.status() == VmStatus.SCHEDULED);
  }

  private static final class Run {
    private final WorkerClasses classes;
    private final Map<String, Map<String, Long>> held = new HashMap<>();
    private final Map<String, Map<String, Long>> freeing = new HashMap<>();
    private final Map<String, List<VmSnapshot>> evictableOn = new HashMap<>();
    private final Map<String, Integer> allowance;
    private final SpreadsReplicas spreads;
    private final List<Preemption> preemptions = new ArrayList<>();
    private final Map<String, String> reasons = new TreeMap<>();

    /** The workers with room on its way out, and those with VMs that may be evicted, by name. */
    private final java.util.Set<Candidate> freeingOn = new java.util.LinkedHashSet<>();

    private final List<Candidate> evictingOn = new ArrayList<>();

    private final Map<String, Candidate> byName = new HashMap<>();

    /** The lowest priority of the VMs that may be evicted. */
    private int lowest = Integer.MAX_VALUE;

    /**
     * Waiting VMs for which no eviction made room: one alike (runtime, labels, constraints, disk,
     * avoided worker, no set), of no higher priority and asking for no less, finds none either, as
     * evictions only take room.
     */
    private final List<PendingVm> noRoom = new ArrayList<>();

    Run(
        WorkerClasses classes,
        List<Holding> holdings,
        List<Holding> freeing,
        List<Running> running,
        Map<String, Integer> allowances) {
      this.classes = classes;
      classes.workers().forEach(w -> byName.put(w.name(), w));
      holdings.forEach(h -> add(held, h.worker(), h.request()));
      freeing.forEach(h -> add(this.freeing, h.worker(), h.request()));
      for (Running r : running) {
        if (evictable(r.vm())) {
          evictableOn.computeIfAbsent(r.worker(), w -> new ArrayList<>()).add(r.vm());
          lowest = Math.min(lowest, r.vm().priority());
        } else if (r.vm().evicted()) {
          add(this.freeing, r.worker(), r.vm().request());
        }
      }
      evictableOn.values().forEach(l -> l.sort(Comparator.comparingInt(VmSnapshot::priority)));
      for (Candidate w : classes.workers()) {
        if (this.freeing.containsKey(w.name())) {
          freeingOn.add(w);
          raiseCeiling(w);
        }
        if (evictableOn.containsKey(w.name())) {
          evictingOn.add(w);
        }
      }
      this.allowance = new HashMap<>(allowances);
      this.spreads = new SpreadsReplicas(holdings);
    }

    private boolean knownNotToMakeRoom(PendingVm vm) {
      for (PendingVm failed : noRoom) {
        if (failed.priority() >= vm.priority()
            && WorkerClasses.Key.of(failed)
                .feasibility()
                .equals(WorkerClasses.Key.of(vm).feasibility())
            && java.util.Objects.equals(failed.diskOn(), vm.diskOn())
            && java.util.Objects.equals(failed.avoid(), vm.avoid())
            && failed.set() == null
            && vm.set() == null
            && Resources.fits(failed.request(), vm.request())) {
          return true;
        }
      }
      return false;
    }

    /**
     * What every VM on {@code w} of priority {@code threshold} or lower holds: the sums over its
     * evictable VMs, lowest first, made once for each worker until one of them is evicted.
     */
    private Map<String, Long> freeable(Candidate w, int threshold) {
      List<VmSnapshot> there = evictableOn.get(w.name());
      List<Map<String, Long>> sums =
          cumulative.computeIfAbsent(
              w.name(),
              k -> {
                List<Map<String, Long>> all = new ArrayList<>(there.size() + 1);
                Map<String, Long> sum = Map.of();
                all.add(sum);
                for (VmSnapshot r : there) {
                  sum = Resources.plus(sum, r.request());
                  all.add(sum);
                }
                return all;
              });
      int n = 0;
      while (n < there.size() && there.get(n).priority() <= threshold) {
        n++;
      }
      return sums.get(n);
    }

    /** {@link #freeable}'s sums, by worker. */
    private final Map<String, List<Map<String, Long>>> cumulative = new HashMap<>();

    /** Whether {@code request} fits in {@code a} and {@code b} together. */
    private static boolean fitsWith(
        Map<String, Long> request, Map<String, Long> a, Map<String, Long> b) {
      for (Map.Entry<String, Long> e : request.entrySet()) {
        long both =
            Resources.saturatingAdd(a.getOrDefault(e.getKey(), 0L), b.getOrDefault(e.getKey(), 0L));
        if (e.getValue() > both) {
          return false;
        }
      }
      return true;
    }

    /**
     * At least as much of each resource as any worker with room on its way out will have: a VM that
     * asks for more looks at none of them. Raised as workers join; never lowered, as what is
     * claimed only lowers a worker's room.
     */
    private final Map<String, Long> soonCeiling = new HashMap<>();

    private void raiseCeiling(Candidate w) {
      room(w).forEach((r, amount) -> soonCeiling.merge(r, amount, Math::max));
    }

    /**
     * Whether {@code room} has some of each resource {@code like} asks for: room a later VM like it
     * might fit in, worth looking at again.
     */
    private static boolean leavesRoomFor(Map<String, Long> like, Map<String, Long> room) {
      for (Map.Entry<String, Long> e : like.entrySet()) {
        if (e.getValue() > 0 && room.getOrDefault(e.getKey(), 0L) <= 0) {
          return false;
        }
      }
      return true;
    }

    /** Whether no room is on its way out and no VM may be evicted: nothing to do. */
    boolean idle() {
      return freeingOn.isEmpty() && evictingOn.isEmpty();
    }

    Outcome run(List<PendingVm> waiting) {
      for (PendingVm vm : waiting) {
        boolean mayEvict = vm.priority() - Priority.PREEMPTION_GAP >= lowest;
        if (freeingOn.isEmpty() && !mayEvict) {
          continue;
        }
        Predicate<Candidate> open = open(vm);
        String soon = null;
        for (Candidate w :
            Resources.fits(vm.request(), soonCeiling) ? freeingOn : Set.<Candidate>of()) {
          if (open.test(w) && Resources.fits(vm.request(), room(w))) {
            soon = w.name();
            break;
          }
        }
        if (soon != null) {
          add(held, soon, vm.request()); // the room being freed there is this VM's
          reasons.put(
              vm.name(), "room is being freed for it on worker " + soon + ": placed once it is");
          continue;
        }
        Choice best = null;
        int threshold = vm.priority() - Priority.PREEMPTION_GAP;
        if (mayEvict && !knownNotToMakeRoom(vm)) {
          for (Candidate w : evictingOn) {
            List<VmSnapshot> there = evictableOn.get(w.name());
            if (there.isEmpty()
                || there.get(0).priority() > threshold
                // One eviction found: only one of a lower priority, on another worker, beats it.
                || best != null
                    && best.victims().size() == 1
                    && there.get(0).priority() >= best.victims().get(0).priority()
                || !open.test(w)) {
              continue;
            }
            Map<String, Long> room = room(w);
            if (!fitsWith(vm.request(), room, freeable(w, threshold))) {
              continue; // not even every VM it may evict there would make room
            }
            Choice c = choose(w, vm, room);
            if (c != null && (best == null || c.betterThan(best))) {
              best = c;
              if (c.victims().size() == 1 && c.victims().get(0).priority() == lowest) {
                break; // no worker can do better: one eviction, of the lowest there is
              }
            }
          }
          if (best == null && noRoom.size() < REMEMBERED) {
            noRoom.add(vm);
          }
        }
        if (best != null) {
          take(vm, best);
        }
      }
      return new Outcome(preemptions, reasons);
    }

    /**
     * The workers {@code vm} may go to, room aside: as placement admits them (its checks, the
     * worker it avoids, its disk's, its set's spread).
     */
    private Predicate<Candidate> open(PendingVm vm) {
      WorkerClasses.WorkerClass feasible = classes.of(vm);
      Predicate<Candidate> admits =
          w ->
              feasible.admits(w.name())
                  && PlacementStack.AVOIDS.admits(w.name(), vm)
                  && PlacementStack.DISK.admits(w.name(), vm);
      if (!vm.spreads()) {
        return admits;
      }
      Predicate<String> spread = spreads.admits(vm, feasible.members());
      return spread == null ? admits : admits.and(w -> spread.test(w.name()));
    }

    /** What the worker will have free once what is on its way out is gone. */
    private Map<String, Long> room(Candidate w) {
      return rooms.computeIfAbsent(w.name(), k -> roomNow(w));
    }

    /** {@link #room}, by worker, until what it holds or frees changes. */
    private final Map<String, Map<String, Long>> rooms = new HashMap<>();

    private Map<String, Long> roomNow(Candidate w) {
      Map<String, Long> holds = held.getOrDefault(w.name(), Map.of());
      Map<String, Long> leaving = freeing.getOrDefault(w.name(), Map.of());
      Map<String, Long> staying = new TreeMap<>();
      holds.forEach(
          (r, amount) ->
              staying.put(r, Resources.flooredSubtract(amount, leaving.getOrDefault(r, 0L))));
      return Resources.free(w.capacity(), staying);
    }

    /** The fewest, lowest VMs on {@code w} whose eviction makes room for {@code vm}; or null. */
    private Choice choose(Candidate w, PendingVm vm, Map<String, Long> room) {
      List<VmSnapshot> candidates = new ArrayList<>();
      for (VmSnapshot r : evictableOn.getOrDefault(w.name(), List.of())) {
        if (r.priority() <= vm.priority() - Priority.PREEMPTION_GAP) {
          candidates.add(r);
        }
      }
      if (candidates.isEmpty()) {
        return null;
      }
      candidates.sort(
          Comparator.comparingInt(VmSnapshot::priority)
              .thenComparing(r -> size(r.request(), vm.request()), Comparator.reverseOrder())
              .thenComparing(VmSnapshot::name));
      List<VmSnapshot> taken = new ArrayList<>();
      Map<String, Integer> fromSet = new HashMap<>();
      Map<String, Long> freed = room;
      for (VmSnapshot r : candidates) {
        if (Resources.fits(vm.request(), freed)) {
          break;
        }
        if (r.set() != null) {
          int used = fromSet.getOrDefault(r.set(), 0);
          if (used >= allowance.getOrDefault(r.set(), Integer.MAX_VALUE)) {
            continue;
          }
          fromSet.put(r.set(), used + 1);
        }
        taken.add(r);
        freed = Resources.plus(freed, r.request());
      }
      if (!Resources.fits(vm.request(), freed)) {
        return null;
      }
      // Spare any that the later, larger or higher ones made unneeded, the highest first.
      for (int i = taken.size() - 1; i >= 0; i--) {
        VmSnapshot r = taken.get(i);
        Map<String, Long> without = room;
        for (VmSnapshot other : taken) {
          if (other != r) {
            without = Resources.plus(without, other.request());
          }
        }
        if (Resources.fits(vm.request(), without)) {
          taken.remove(i);
        }
      }
      return new Choice(w.name(), taken);
    }

    private void take(PendingVm vm, Choice c) {
      List<String> names = new ArrayList<>();
      for (VmSnapshot r : c.victims()) {
        preemptions.add(
            new Preemption(
                r.name(),
                r.seq(),
                r.restartCount(),
                r.priority(),
                c.worker(),
                vm.name(),
                vm.priority()));
        evictableOn.get(c.worker()).remove(r);
        cumulative.remove(c.worker());
        add(freeing, c.worker(), r.request());
        if (r.set() != null) {
          allowance.computeIfPresent(r.set(), (s, n) -> n - 1);
        }
        names.add(r.name() + " (priority " + r.priority() + ")");
      }
      add(held, c.worker(), vm.request());
      // What its victims free beyond its needs may be another waiting VM's, later in the run.
      Candidate there = byName.get(c.worker());
      if (leavesRoomFor(vm.request(), room(there))) {
        freeingOn.add(there);
        raiseCeiling(there);
      }
      if (vm.set() != null) {
        spreads.placed(vm.set(), c.worker());
      }
      reasons.put(
          vm.name(),
          "evicting "
              + String.join(", ", names)
              + " from worker "
              + c.worker()
              + " to make room (priority "
              + vm.priority()
              + "): placed once "
              + (names.size() == 1 ? "it stops" : "they stop"));
    }

    private void add(Map<String, Map<String, Long>> by, String worker, Map<String, Long> r) {
      by.merge(worker, r, Resources::plus);
      rooms.remove(worker);
    }
  }

  /**
   * How much of what {@code wanted} asks for {@code r} gives: the sum over the wanted resources of
   * the fraction it covers, so that one VM that frees enough goes before several that do.
   */
  private static double size(Map<String, Long> r, Map<String, Long> wanted) {
    double s = 0;
    for (Map.Entry<String, Long> e : wanted.entrySet()) {
      if (e.getValue() > 0) {
        s += Math.min(1.0, (double) r.getOrDefault(e.getKey(), 0L) / e.getValue());
      }
    }
    return s;
  }

  /** The VMs to evict from one worker. */
  private record Choice(String worker, List<VmSnapshot> victims) {
    /** Fewer evictions, then lower priorities evicted, then the worker that sorts first. */
    boolean betterThan(Choice other) {
      if (victims.size() != other.victims.size()) {
        return victims.size() < other.victims.size();
      }
      int highest = highest(), otherHighest = other.highest();
      if (highest != otherHighest) {
        return highest < otherHighest;
      }
      int sum = sum(), otherSum = other.sum();
      return sum != otherSum ? sum < otherSum : worker.compareTo(other.worker) < 0;
    }

    private int highest() {
      int highest = 0;
      for (VmSnapshot v : victims) {
        highest = Math.max(highest, v.priority());
      }
      return highest;
    }

    private int sum() {
      int sum = 0;
      for (VmSnapshot v : victims) {
        sum += v.priority();
      }
      return sum;
    }
  }
}
