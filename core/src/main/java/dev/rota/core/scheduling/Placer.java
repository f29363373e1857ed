package dev.rota.core.scheduling;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.scheduling.placement.FeasibilityCheck;
import dev.rota.core.scheduling.placement.FitsNowhere;
import dev.rota.core.scheduling.placement.PlacementStack;
import dev.rota.core.scheduling.placement.Ranker;
import dev.rota.core.scheduling.placement.SpreadsReplicas;
import dev.rota.core.scheduling.placement.WorkerClasses;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Places pending VMs on workers, highest priority first and oldest first among equals, through the
 * {@link PlacementStack}: a worker qualifies when every feasibility check admits it (ready and
 * unpaused, offers the runtime, carries the labels, meets the constraints, has no {@code
 * NoSchedule} taint the VM does not tolerate), the VM does not avoid it, a replica's set spread
 * allows it ({@link SpreadsReplicas}), and it has every requested resource free. Of those, a worker
 * with a {@code PreferNoSchedule} taint the VM does not tolerate only when no other has room; a
 * restart after a failure prefers a worker other than the one it failed on; then a worker that
 * holds the VM's image, the one whose task used it most recently first (Scoot's snapshot groups: it
 * need not fetch it); then the profile's {@link Ranker} picks, ties to the name that sorts first. A
 * VM that fits nowhere does not hold up the ones behind it, and what one placement takes counts at
 * once for the next. Why a VM waits is read from what the checks recorded.
 *
 * <p>Fast enough for 100,000 VMs on 10,000 workers: workers are grouped by the VMs' classes ({@link
 * WorkerClasses}: runtime, labels, constraints and tolerations) into {@link FitTree}s ordered by
 * preference, which find the first worker with room without walking past the full ones; a worker
 * that cannot fit even the smallest request left leaves every tree, and a request known not to fit
 * a class is not tried again.
 */
public final class Placer {
  /** How many requests a class remembers as not fitting; more would cost more than they save. */
  private static final int MAX_MISFITS = 32;

  private Placer() {}

  public static PlacementPlan place(
      List<Candidate> workers,
      List<Holding> holdings,
      List<PendingVm> pending,
      SchedulerProfile profile) {
    return place(workers, holdings, pending, profile, java.util.Set.of());
  }

  /**
   * As {@link #place(List, List, List, SchedulerProfile)}, a VM whose disk's worker cannot take it
   * going elsewhere, its disk copied from there, when that worker is among {@code lenders} (its
   * agent answers, whether or not it takes VMs).
   */
  public static PlacementPlan place(
      List<Candidate> workers,
      List<Holding> holdings,
      List<PendingVm> pending,
      SchedulerProfile profile,
      java.util.Set<String> lenders) {
    return place(new WorkerClasses(workers), holdings, pending, profile, lenders);
  }

  /**
   * As {@link #place(List, List, List, SchedulerProfile, java.util.Set)}, over a term's classes.
   */
  public static PlacementPlan place(
      WorkerClasses workers,
      List<Holding> holdings,
      List<PendingVm> pending,
      SchedulerProfile profile,
      java.util.Set<String> lenders) {
    return place(workers, holdings, pending, profile, lenders, NamespaceBudgets.none());
  }

  /**
   * As {@link #place(WorkerClasses, List, List, SchedulerProfile, java.util.Set)}, a VM placed only
   * while its namespace's quota leaves room for it ({@code budgets}, which each placement takes
   * from); one that it leaves none waits, saying so.
   */
  public static PlacementPlan place(
      WorkerClasses workers,
      List<Holding> holdings,
      List<PendingVm> pending,
      SchedulerProfile profile,
      java.util.Set<String> lenders,
      NamespaceBudgets budgets) {
    return new Run(workers, holdings, pending, profile, lenders, budgets).run();
  }

  /** A worker during one placement run, with what it holds so far. */
  private static final class Slot {
    final Candidate worker;

    /** Its place among the run's slots, for what a class keeps of each worker in an array. */
    final int index;

    final long[] capacity;
    final long[] allocated;
    final long[] free;
    final List<FitTree<Slot>> memberOf = new ArrayList<>();
    double score;
    boolean pruned;

    Slot(Candidate worker, int index, long[] capacity, long[] allocated) {
      this.worker = worker;
      this.index = index;
      this.capacity = capacity;
      this.allocated = allocated;
      this.free = new long[capacity.length];
      refresh();
    }

    /** Recomputes what is free and the score after the allocation changed. */
    void refresh() {
      for (int r = 0; r < capacity.length; r++) {
        free[r] = Resources.flooredSubtract(capacity[r], allocated[r]);
      }
      score = score();
    }

    /** How full the worker is: the sum over its resources of the fraction held. */
    double score() {
      return Resources.fullness(allocated, capacity);
    }
  }

  /**
   * Workers that satisfy one runtime, labels and constraints combination, in the profile's order.
   */
  private static final class ConstraintClass {
    final WorkerClasses.WorkerClass workers;
    final List<Slot> members = new ArrayList<>();

    /** The members these VMs go to first. */
    final WorkerFit<Slot> available;

    /**
     * The members with a {@code PreferNoSchedule} taint these VMs do not tolerate, taken only when
     * none of {@link #available} has room; null when there are none.
     */
    WorkerFit<Slot> reluctant;

    final List<long[]> knownMisfits = new ArrayList<>();

    /** The order of the class's workers: the profile's, or with the VMs' affinities added. */
    final Comparator<Slot> order;

    ConstraintClass(WorkerClasses.WorkerClass workers, Comparator<Slot> order) {
      this.workers = workers;
      this.order = order;
      this.available = fit();
    }

    /**
     * Workers in the class's order: a tree kept ordered as workers fill, or, for VMs with
     * affinities (an order of their own, which every placement would otherwise have to keep),
     * ranked when asked.
     */
    WorkerFit<Slot> fit() {
      return workers.hasAffinities()
          ? new ScanFit<>(order, s -> s.free)
          : new FitTree<>(order, s -> s.free);
    }

    /** Each tier of members, the preferred first. */
    List<WorkerFit<Slot>> tiers() {
      return reluctant == null ? List.of(available) : List.of(available, reluctant);
    }

    /** The workers of the class as the feasibility checks admitted them. */
    List<Candidate> candidates() {
      return workers.members();
    }

    /** What each feasibility check saw, in {@link PlacementStack#CHECKS}'s order. */
    List<FeasibilityCheck.Tally> tallies() {
      return workers.tallies();
    }

    /**
     * The class's workers by the images they hold; made when a VM of the class first has an image.
     */
    private Map<String, List<Slot>> holdersByImage;

    private final Map<String, FitTree<Slot>> holderTrees = new HashMap<>();

    /**
     * The class's workers that hold {@code image}, the most recent user of it first, then in the
     * profile's order; null when none does (or the VM has no image).
     */
    FitTree<Slot> holders(String image, Comparator<Slot> order) {
      if (image == null) {
        return null;
      }
      if (holdersByImage == null) {
        holdersByImage = new HashMap<>();
        for (Slot s : members) {
          if (workers.reluctant(s.worker.name())) {
            continue; // holding the image does not outweigh the taint
          }
          s.worker
              .images()
              .keySet()
              .forEach(held -> holdersByImage.computeIfAbsent(held, k -> new ArrayList<>()).add(s));
        }
      }
      List<Slot> holding = holdersByImage.get(image);
      if (holding == null) {
        return null;
      }
      return holderTrees.computeIfAbsent(
          image,
          k -> {
            Comparator<Slot> recentFirst =
                Comparator.comparing((Slot s) -> s.worker.lastUsed(image)).reversed();
            FitTree<Slot> tree = new FitTree<>(recentFirst.thenComparing(order), s -> s.free);
            for (Slot s : holding) {
              s.memberOf.add(tree);
              if (!s.pruned) {
                tree.add(s);
              }
            }
            return tree;
          });
    }

    boolean knownNotToFit(long[] request) {
      for (long[] misfit : knownMisfits) {
        if (dominates(request, misfit)) {
          return true;
        }
      }
      return false;
    }
  }

  private static final class Run {
    private final WorkerClasses workers;
    private final List<PendingVm> pending;
    private final ResourceIndex resources = new ResourceIndex();
    private final Map<String, long[]> held = new HashMap<>();
    private final Map<String, Slot> byName = new HashMap<>();
    private final Map<WorkerClasses.Key, ConstraintClass> classes = new HashMap<>();
    private final Map<ReasonKey, String> reasons = new HashMap<>();
    private final Map<ReasonKey, Optional<String>> fitsNowhere = new HashMap<>();

    /** Whether each kind of VM fits no worker at all, and else the workers that could take it. */
    private final Map<WorkerClasses.Key, FitsNowhere.Judged> kinds = new HashMap<>();

    private final Comparator<Slot> order;
    private final Ranker ranker;
    private final SpreadsReplicas spreads;
    private long[] smallestRequest;

    /** The workers whose agents answer: each may lend a disk it holds to another worker. */
    private final java.util.Set<String> lenders;

    private final NamespaceBudgets budgets;

    /** Why each VM its namespace's quota keeps waiting waits. */
    private final Map<String, String> overQuota = new HashMap<>();

    Run(
        WorkerClasses workers,
        List<Holding> holdings,
        List<PendingVm> pending,
        SchedulerProfile profile,
        java.util.Set<String> lenders,
        NamespaceBudgets budgets) {
      this.budgets = budgets;
      this.lenders = lenders;
      this.workers = workers;
      this.spreads = new SpreadsReplicas(holdings);
      this.pending = pending.stream().sorted(PendingVm.QUEUE_ORDER).toList();
      this.ranker = Ranker.of(profile);
      Comparator<Slot> byScore = (a, b) -> ranker.compare(a.score, b.score);
      this.order = byScore.thenComparing(s -> s.worker.name());
      workers.workers().forEach(w -> w.capacity().keySet().forEach(resources::add));
      this.pending.forEach(v -> v.request().keySet().forEach(resources::add));
      for (Holding h : holdings) {
        long[] sum = held.computeIfAbsent(h.worker(), k -> resources.zero());
        h.request()
            .forEach(
                (name, amount) -> {
                  Integer r = resources.of(name);
                  if (r != null) {
                    sum[r] = Resources.saturatingAdd(sum[r], amount);
                  }
                });
      }
    }

    /** The worker's slot in this run, made when a class first admits it. */
    private Slot slotOf(Candidate w) {
      return byName.computeIfAbsent(
          w.name(),
          name -> {
            Slot slot =
                new Slot(
                    w,
                    byName.size(),
                    resources.vector(w.capacity()),
                    held.getOrDefault(name, resources.zero()));
            pruneIfFull(slot);
            return slot;
          });
    }

    PlacementPlan run() {
      smallestRequest = resources.zero();
      java.util.Arrays.fill(smallestRequest, Long.MAX_VALUE);
      List<long[]> requests = new ArrayList<>(pending.size());
      for (PendingVm vm : pending) {
        long[] request = resources.vector(vm.request());
        requests.add(request);
        for (int r = 0; r < request.length; r++) {
          smallestRequest[r] = Math.min(smallestRequest[r], request[r]);
        }
      }

      List<PlacementPlan.Placement> placed = new ArrayList<>();
      List<PendingVm> unplaced = new ArrayList<>();
      for (int i = 0; i < pending.size(); i++) {
        PendingVm vm = pending.get(i);
        Optional<String> quota = budgets.refusal(vm);
        if (quota.isPresent()) {
          overQuota.put(vm.name(), quota.get());
          unplaced.add(vm);
          continue;
        }
        long[] request = requests.get(i);
        ConstraintClass cls = classOf(vm);
        Predicate<Slot> admits = perVm(vm, cls);
        FitTree<Slot> holders = cls.holders(vm.image(), cls.order);
        Slot chosen = null;
        if (vm.failedOn() != null) {
          // A restart after a failure prefers any other worker, and takes that one only if none has
          // room.
          Predicate<Slot> elsewhere = elsewhere(vm, admits);
          chosen = holders == null ? null : holders.firstFit(request, elsewhere);
          if (chosen == null) {
            chosen = cls.available.firstFit(request, elsewhere);
          }
        }
        if (chosen == null && holders != null) {
          chosen = holders.firstFit(request, admits);
        }
        if (chosen == null) {
          chosen = firstFit(cls, request, admits);
        }
        if (chosen == null && cls.reluctant != null) {
          // Only workers with a taint it does not tolerate but that allows it have room.
          if (vm.failedOn() != null) {
            chosen = cls.reluctant.firstFit(request, elsewhere(vm, admits));
          }
          if (chosen == null) {
            chosen = cls.reluctant.firstFit(request, admits);
          }
        }
        if (chosen == null && movesWithItsDisk(vm)) {
          // Its disk's worker takes no VMs now, but can lend the disk: it goes elsewhere with a
          // copy, where it fits. (A worker that is only full keeps it: its own last task may be
          // what fills it, and a copy is dear.)
          chosen = anyFit(cls, request, perVm(vm, cls, true));
        }
        if (chosen == null) {
          unplaced.add(vm);
        } else {
          take(chosen, request);
          budgets.take(vm);
          if (vm.set() != null) {
            spreads.placed(vm.set(), chosen.worker.name());
          }
          Instant used = chosen.worker.lastUsed(vm.image());
          String why = used == null ? null : "holds image " + vm.image() + ", last used " + used;
          placed.add(new PlacementPlan.Placement(vm.name(), chosen.worker.name(), why));
        }
      }
      List<PlacementPlan.Unplaced> waiting = new ArrayList<>(unplaced.size());
      for (PendingVm vm : unplaced) {
        if (overQuota.containsKey(vm.name())) {
          waiting.add(new PlacementPlan.Unplaced(vm.name(), overQuota.get(vm.name()), false));
          continue;
        }
        Optional<String> nowhere =
            fitsNowhere.computeIfAbsent(
                new ReasonKey(WorkerClasses.Key.of(vm).feasibility(), vm.request(), null, null),
                k -> {
                  FitsNowhere.Judged kind =
                      kinds.computeIfAbsent(
                          k.cls(), c -> FitsNowhere.ofKind(vm, workers.workers()));
                  return kind.why().isPresent()
                      ? kind.why()
                      : FitsNowhere.bySize(vm, kind.couldTake());
                });
        waiting.add(
            nowhere
                .map(why -> new PlacementPlan.Unplaced(vm.name(), why, true))
                .orElseGet(() -> new PlacementPlan.Unplaced(vm.name(), reason(vm), false)));
      }
      return new PlacementPlan(placed, waiting);
    }

    /**
     * The first worker of the class with room that {@code admits} (null: any); a request known not
     * to fit the class is not tried again, and one that does not fit is remembered.
     */
    private Slot firstFit(ConstraintClass cls, long[] request, Predicate<Slot> admits) {
      if (admits != null) {
        return cls.available.firstFit(request, admits);
      }
      Slot chosen = cls.knownNotToFit(request) ? null : cls.available.firstFit(request);
      if (chosen == null && cls.knownMisfits.size() < MAX_MISFITS) {
        cls.knownMisfits.add(request);
      }
      return chosen;
    }

    /** The first worker with room that {@code admits} (null: any), the preferred ones first. */
    private static Slot anyFit(ConstraintClass cls, long[] request, Predicate<Slot> admits) {
      for (WorkerFit<Slot> tier : cls.tiers()) {
        Slot s = admits == null ? tier.firstFit(request) : tier.firstFit(request, admits);
        if (s != null) {
          return s;
        }
      }
      return null;
    }

    /**
     * The workers the VM does not avoid, and the one that holds its disk if it has one; null when
     * neither narrows them.
     */
    private static Predicate<Slot> avoiding(PendingVm vm) {
      return avoiding(vm, false);
    }

    /**
     * The workers the VM avoids and, when it has a disk, its disk's rule: only the disk's worker,
     * or ({@code diskCopied}) any other, the disk copied there.
     */
    private static Predicate<Slot> avoiding(PendingVm vm, boolean diskCopied) {
      Predicate<Slot> avoids =
          vm.avoid() == null ? null : s -> PlacementStack.AVOIDS.admits(s.worker.name(), vm);
      if (vm.diskOn() == null) {
        return avoids;
      }
      Predicate<Slot> disk =
          diskCopied
              ? s -> !s.worker.name().equals(vm.diskOn())
              : s -> PlacementStack.DISK.admits(s.worker.name(), vm);
      return avoids == null ? disk : avoids.and(disk);
    }

    /**
     * Whether the VM's disk is on a worker that takes no VMs like it now (paused, draining) but
     * whose agent answers, so that it may lend the disk.
     */
    private boolean movesWithItsDisk(PendingVm vm) {
      return vm.diskOn() != null
          && lenders.contains(vm.diskOn())
          && classOf(vm).members.stream().noneMatch(s -> s.worker.name().equals(vm.diskOn()));
    }

    private static Predicate<Slot> elsewhere(PendingVm vm, Predicate<Slot> admits) {
      Predicate<Slot> notThere = s -> !s.worker.name().equals(vm.failedOn());
      return admits == null ? notThere : admits.and(notThere);
    }

    /**
     * What is decided for this VM alone, over the workers its class admits: the worker it avoids,
     * and where its set's replicas are; null when nothing is, which lets the class's memory of
     * misfits serve.
     */
    private Predicate<Slot> perVm(PendingVm vm, ConstraintClass cls) {
      return perVm(vm, cls, false);
    }

    /** {@link #perVm}, or ({@code diskCopied}) with its disk copied to any other worker. */
    private Predicate<Slot> perVm(PendingVm vm, ConstraintClass cls, boolean diskCopied) {
      Predicate<Slot> admits = avoiding(vm, diskCopied);
      Predicate<String> spread = spreads.admits(vm, cls.candidates());
      if (spread == null) {
        return admits;
      }
      Predicate<Slot> bySpread = s -> spread.test(s.worker.name());
      return admits == null ? bySpread : admits.and(bySpread);
    }

    private void take(Slot s, long[] request) {
      s.memberOf.forEach(set -> set.remove(s));
      for (int r = 0; r < request.length; r++) {
        s.allocated[r] = Resources.saturatingAdd(s.allocated[r], request[r]);
      }
      s.refresh();
      pruneIfFull(s);
      if (!s.pruned) {
        s.memberOf.forEach(set -> set.add(s));
      }
    }

    /**
     * A worker that cannot fit even the smallest request of this term leaves every set for good.
     */
    private void pruneIfFull(Slot s) {
      for (int r = 0; r < smallestRequest.length; r++) {
        if (smallestRequest[r] != Long.MAX_VALUE && smallestRequest[r] > s.free[r]) {
          s.pruned = true;
          s.memberOf.forEach(set -> set.remove(s));
          return;
        }
      }
    }

    /** VMs alike in why they wait. */
    private record ReasonKey(
        WorkerClasses.Key cls,
        Map<String, Long> request,
        String avoid,
        String spreadingSet,
        String diskOn) {
      ReasonKey(
          WorkerClasses.Key cls, Map<String, Long> request, String avoid, String spreadingSet) {
        this(cls, request, avoid, spreadingSet, null);
      }
    }

    private ConstraintClass classOf(PendingVm vm) {
      return classes.computeIfAbsent(
          WorkerClasses.Key.of(vm),
          k -> {
            WorkerClasses.WorkerClass admitted = workers.of(vm);
            ConstraintClass cls =
                new ConstraintClass(
                    admitted, admitted.hasAffinities() ? withAffinities(admitted) : order);
            for (Candidate w : cls.candidates()) {
              Slot s = slotOf(w);
              cls.members.add(s);
              WorkerFit<Slot> tier = cls.available;
              if (cls.workers.reluctant(w.name())) {
                if (cls.reluctant == null) {
                  cls.reluctant = cls.fit();
                }
                tier = cls.reluctant;
              }
              if (tier instanceof FitTree<Slot> tree) {
                s.memberOf.add(tree);
                if (!s.pruned) {
                  tree.add(s);
                }
              } else {
                tier.add(s); // a scan reads what is free when asked: nothing to keep up
              }
            }
            return cls;
          });
    }

    /**
     * The class's workers by the profile's score of each plus the VMs' affinity for it, the highest
     * first, ties to the name.
     */
    private Comparator<Slot> withAffinities(WorkerClasses.WorkerClass admitted) {
      int count = resources.size();
      // Each member's affinity by its slot's index: the tree compares often, and an array is cheap.
      double[] affinity = new double[workers.workers().size()];
      for (Candidate w : admitted.members()) {
        affinity[slotOf(w).index] = admitted.affinity(w.name());
      }
      Comparator<Slot> byScore =
          Comparator.comparingDouble(
              (Slot s) -> -(ranker.score(s.score, count) + affinity[s.index]));
      return byScore.thenComparing(s -> s.worker.name());
    }

    /** Why a VM still waits, naming what is missing; the same for VMs alike. */
    private String reason(PendingVm vm) {
      return reasons.computeIfAbsent(
          new ReasonKey(
              WorkerClasses.Key.of(vm).feasibility(),
              vm.request(),
              vm.avoid(),
              vm.spreads() ? vm.set() : null,
              vm.diskOn()),
          k -> PlacementStack.AVOIDS.why(vm) + (vm.diskOn() == null ? explain(vm) : disk(vm)));
    }

    /** Where its persistent disk keeps the VM, and whether that worker is open to it at all. */
    private String disk(PendingVm vm) {
      if (vm.diskOn() == null) {
        return "";
      }
      boolean open =
          classOf(vm).members.stream().anyMatch(s -> s.worker.name().equals(vm.diskOn()));
      return PlacementStack.DISK.why(vm, open)
          + (movesWithItsDisk(vm) ? "; nor has any other worker room to copy it to" : "");
    }

    /**
     * The first check that let no worker through says why; if some did and one had room but the
     * replica's spread sent it elsewhere, the spread; otherwise there was no room on them.
     */
    private String explain(PendingVm vm) {
      ConstraintClass cls = classOf(vm);
      if (vm.spreads() && !cls.candidates().isEmpty()) {
        if (anyFit(cls, resources.vector(vm.request()), avoiding(vm)) != null) {
          return spreads.why(vm, cls.candidates());
        }
      }
      for (int i = 0; i < PlacementStack.CHECKS.size(); i++) {
        FeasibilityCheck.Tally tally = cls.tallies().get(i);
        if (tally.admittedCount() == 0) {
          return PlacementStack.CHECKS.get(i).whyNone(vm, tally);
        }
      }
      return PlacementStack.RESOURCES.whyNone(
          vm.request(),
          resource -> {
            int r = resources.of(resource);
            long mostFree = 0;
            for (Slot s : cls.members) {
              mostFree = Math.max(mostFree, s.free[r]);
            }
            return mostFree;
          });
    }
  }

  /** Whether {@code a} asks for at least as much as {@code b} of everything. */
  static boolean dominates(long[] a, long[] b) {
    for (int r = 0; r < a.length; r++) {
      if (a[r] < b[r]) {
        return false;
      }
    }
    return true;
  }
}
