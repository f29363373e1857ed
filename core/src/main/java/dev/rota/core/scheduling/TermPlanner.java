package dev.rota.core.scheduling;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.placement.WorkerClasses;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One term of the scheduler as a pure function: health first, so that placement sees this term's
 * health, then placement, then what the VMs left waiting evict where the cluster preempts, then
 * what draining takes off workers or else rebalancing moves, then reconciliation of expected
 * against actual.
 */
public final class TermPlanner {
  private TermPlanner() {}

  /**
   * @param listeningSince when the scheduler came back after an outage, or null: workers are judged
   *     on what they could say since ({@link HealthJudge#judge(WorkerProbeState, Instant,
   *     HealthSettings, Instant)})
   * @param vms every VM, as its workflow last recorded it
   * @param tasks every task placed and not yet forgotten, as last observed
   * @param reported the task lists of the agents that answered this term, by worker; an agent
   *     missing here did not answer and tells nothing
   * @param rebalancing what moves of VM sets' replicas this term may make once placement is done
   *     ({@link Rebalancer}); {@link Rebalancing#OFF} for none
   * @param pausedBecause null, or why scheduling is paused for the cluster: then the term observes,
   *     judges health, reconciles and ends drains at their deadline as ever, but places nothing and
   *     moves nothing; every VM that waits says why ({@code scheduling is paused for the cluster:
   *     <reason>}), and a VM lost with its worker waits as its workflow decides
   */
  public static TermPlan plan(
      Instant now,
      Instant listeningSince,
      SchedulerProfile profile,
      HealthSettings settings,
      List<WorkerSnapshot> workers,
      List<VmSnapshot> vms,
      List<PlacedTask> tasks,
      Map<String, List<ObservedTask>> reported,
      Rebalancing rebalancing,
      String pausedBecause) {
    return plan(
        now,
        listeningSince,
        profile,
        settings,
        workers,
        vms,
        tasks,
        reported,
        rebalancing,
        pausedBecause,
        false,
        Map.of());
  }

  /**
   * As {@link #plan(Instant, Instant, SchedulerProfile, HealthSettings, List, List, List, Map,
   * Rebalancing, String)}; with {@code preemption}, a VM left waiting may evict running VMs of
   * lower priority to make room ({@link Preemptor}). A VM whose namespace's quota ({@code quotas},
   * by namespace; one left out has none) its namespace's VMs on workers leave no room for waits,
   * saying so ({@link NamespaceBudgets}).
   */
  public static TermPlan plan(
      Instant now,
      Instant listeningSince,
      SchedulerProfile profile,
      HealthSettings settings,
      List<WorkerSnapshot> workers,
      List<VmSnapshot> vms,
      List<PlacedTask> tasks,
      Map<String, List<ObservedTask>> reported,
      Rebalancing rebalancing,
      String pausedBecause,
      boolean preemption,
      Map<String, dev.rota.core.model.Quota> quotas) {
    List<TermPlan.HealthChange> changes = new ArrayList<>();
    List<Candidate> candidates = new ArrayList<>(workers.size());
    Set<String> gone = new HashSet<>();
    Map<String, WorkerHealth> healthOf = new HashMap<>();
    Map<String, Instant> drains = new HashMap<>();
    List<TermPlan.WorkerRemoval> removals = new ArrayList<>();
    Instant nextDeadline = null;
    List<HealthVerdict> verdicts = new ArrayList<>(workers.size());
    int silent = 0;
    for (WorkerSnapshot w : workers) {
      HealthVerdict verdict = HealthJudge.judge(w.probe(), now, settings, listeningSince);
      verdicts.add(verdict);
      silent += Disruption.silent(verdict.health()) ? 1 : 0;
    }
    Disruption disruption = new Disruption(silent, workers.size(), settings.disruptionThreshold());
    for (int i = 0; i < workers.size(); i++) {
      WorkerSnapshot w = workers.get(i);
      if (w.drainDeadline() != null) {
        drains.put(w.name(), w.drainDeadline());
        nextDeadline =
            earlier(nextDeadline, w.drainDeadline().isAfter(now) ? w.drainDeadline() : null);
      }
      HealthVerdict verdict = verdicts.get(i);
      if (verdict.health() == WorkerHealth.OFFLINE
          && w.worker().health() != WorkerHealth.OFFLINE
          && disruption.holding()) {
        verdict = disruption.hold(verdict);
      }
      healthOf.put(w.name(), verdict.health());
      if (verdict.health() != w.worker().health()
          || !Objects.equals(verdict.message(), w.healthMessage())
          || !Objects.equals(verdict.flakyUntil(), w.probe().flakyUntil())) {
        changes.add(new TermPlan.HealthChange(w.name(), verdict));
      }
      candidates.add(w.worker().withHealth(verdict.health()));
      if (verdict.health() == WorkerHealth.OFFLINE) {
        gone.add(w.name());
        Instant removalAt = settings.removalAt(w.probe().lastSeen(), listeningSince);
        if (removalAt != null && !now.isBefore(removalAt)) {
          removals.add(new TermPlan.WorkerRemoval(w.name(), w.probe().lastSeen()));
        } else {
          nextDeadline = earlier(nextDeadline, removalAt);
        }
      }
      nextDeadline = earlier(nextDeadline, verdict.nextChange());
    }

    Map<String, VmSnapshot> vmByName = new HashMap<>();
    vms.forEach(vm -> vmByName.put(vm.name(), vm));
    List<Holding> holdings = new ArrayList<>();
    List<Holding> current = new ArrayList<>();
    List<Holding> leaving = new ArrayList<>();
    List<Preemptor.Running> running = new ArrayList<>();
    Map<String, String> runsOn = new HashMap<>();
    List<Drainer.Resident> residents = new ArrayList<>();
    Map<String, Integer> leavingDrained = new HashMap<>();
    Set<String> placedTasks = new HashSet<>();
    Map<String, PlacedTask> othersOfItsId = new HashMap<>();
    Map<String, PlacedTask> lostWithWorker = new HashMap<>();
    // A VM with a record of a later generation than its own is settling a move that failed: its
    // new copy's record goes first, then it may move again under that task id.
    Set<String> settlingMoves = new HashSet<>();
    NamespaceBudgets budgets = new NamespaceBudgets(quotas);
    Set<String> holdingAWorker = new HashSet<>();
    for (PlacedTask t : tasks) {
      VmSnapshot vm = vmByName.get(t.vm());
      boolean ofThisVm = vm != null && vm.seq() == t.vmSeq();
      if (ofThisVm
          && t.state().live()
          && budgets.limits(vm.namespace())
          && holdingAWorker.add(vm.name())) {
        budgets.take(vm); // once, though it moves and holds two
      }
      if (ofThisVm) {
        placedTasks.add(t.vm() + "." + t.generation());
        if (t.generation() > vm.restartCount()) {
          settlingMoves.add(vm.name());
        }
      }
      if (vm != null && !ofThisVm || !t.taskName().equals(t.vm())) {
        // A task of an earlier VM of this name (or of a VM claimed from a pool, which carries a
        // replica's name) until its agent no longer lists it: a start of another VM's task of the
        // same id there would find this one and be taken as done.
        othersOfItsId.put(t.taskId(), t);
      }
      if (t.state().live() && ofThisVm) {
        Holding held = new Holding(t.worker(), vm.request(), vm.set());
        holdings.add(held);
        boolean draining = drains.containsKey(t.worker());
        if (t.generation() != vm.restartCount()) {
          leaving.add(
              new Holding(t.worker(), vm.request())); // a moved VM's old copy, or one to be removed
          if (draining) {
            leavingDrained.merge(t.worker(), 1, Integer::sum);
          }
        } else {
          current.add(held);
          running.add(new Preemptor.Running(vm, t.worker()));
          if (draining) {
            residents.add(new Drainer.Resident(vm, t.worker(), t.state()));
          }
          if (t.state() == TaskState.RUNNING) {
            runsOn.put(vm.name(), t.worker());
          }
        }
      }
      if (!healthOf.containsKey(t.worker())) {
        gone.add(
            t.worker()); // deregistered: as good as offline, and no agent will list its tasks again
      }
      if (ofThisVm
          && t.state().live()
          && t.generation() == vm.restartCount()
          && gone.contains(t.worker())
          && vm.wantsTask()
          && vm.restarts()
          && !vm.moving()
          && !(vm.keepsThroughDisconnect() && healthOf.containsKey(t.worker()))) {
        lostWithWorker.put(vm.name(), t);
      }
    }
    List<PendingVm> pending = new ArrayList<>();
    for (VmSnapshot vm : vms) {
      // Wanted and not placed: a task of its generation, live or ended, is the workflow's to hear
      // of.
      if (vm.wantsTask() && !placedTasks.contains(vm.name() + "." + vm.restartCount())
          || lostWithWorker.containsKey(vm.name())) {
        PlacedTask same = othersOfItsId.get(vm.taskIdAt(vm.restartCount()));
        String held = same != null && same.vmSeq() != vm.seq() ? same.worker() : null;
        PendingVm waiting = vm.asPending();
        pending.add(held != null && waiting.avoid() == null ? waiting.avoiding(held) : waiting);
      }
    }
    // The workers each kind of VM may go to, worked out once for placement, preemption and
    // rebalancing.
    WorkerClasses classes = new WorkerClasses(candidates);
    PlacementPlan placement =
        pausedBecause == null
            ? Placer.place(classes, holdings, pending, profile, lenders(healthOf), budgets)
            : PlacementPlan.waiting(
                pending, "scheduling is paused for the cluster: " + pausedBecause);
    Map<String, PendingVm> pendingByName = new HashMap<>();
    pending.forEach(p -> pendingByName.put(p.name(), p));
    // What this term placed counts as held where it went: moves and evictions go by what will be.
    for (PlacementPlan.Placement p : placement.placed()) {
      PendingVm vm = pendingByName.get(p.vm());
      Holding placed = new Holding(p.worker(), vm.request(), vm.set());
      holdings.add(placed);
      current.add(placed);
    }
    Preemptor.Outcome preempting = Preemptor.Outcome.NONE;
    if (preemption && pausedBecause == null) {
      List<PendingVm> waiting = new ArrayList<>();
      for (PlacementPlan.Unplaced u : placement.pending()) {
        PendingVm vm = pendingByName.get(u.vm());
        // Room made for a VM its quota would keep waiting would be an eviction for nothing.
        if (!u.fitsNowhere()
            && !lostWithWorker.containsKey(u.vm())
            && budgets.refusal(vm).isEmpty()) {
          waiting.add(vm);
          budgets.take(vm);
        }
      }
      preempting =
          Preemptor.plan(
              classes,
              holdings,
              leaving,
              running,
              waiting,
              SetAllowances.of(vms, rebalancing.sets()));
      placement = placement.explainedAs(preempting.reasons());
    }
    // Marked once every record is seen: a later generation's may come after the resident's.
    residents.replaceAll(
        r ->
            settlingMoves.contains(r.vm().name())
                ? new Drainer.Resident(r.vm(), r.worker(), r.state(), true)
                : r);
    residents.sort(java.util.Comparator.comparingLong((Drainer.Resident r) -> r.vm().seq()));
    Drainer.Outcome drain =
        Drainer.plan(
            now,
            drains,
            candidates,
            holdings,
            residents,
            leavingDrained,
            SetAllowances.of(vms, rebalancing.sets()),
            profile);
    List<Move> moves = pausedBecause == null ? drain.moves() : List.of();
    if (moves.isEmpty() && pausedBecause == null) {
      // A term that drains does not also rebalance: the next one balances what the drain left.
      moves = Rebalancer.plan(classes, current, leaving, vms, runsOn, rebalancing, profile);
    }
    Set<String> offline = new HashSet<>(gone);
    offline.retainAll(healthOf.keySet()); // offline, and still registered: a VM may wait for it
    Reconciliation reconciliation = Reconciler.reconcile(vms, tasks, reported, gone, offline);
    if (!lostWithWorker.isEmpty()) {
      return failingOver(
          changes,
          placement,
          reconciliation,
          moves,
          drain,
          removals,
          preempting.preemptions(),
          nextDeadline,
          lostWithWorker);
    }
    return new TermPlan(
        changes,
        placement,
        reconciliation,
        moves,
        drain.evictions(),
        drain.progress(),
        removals,
        List.of(),
        preempting.preemptions(),
        nextDeadline);
  }

  /**
   * The term as planned, with the VMs lost with their worker that placement found room for made
   * failovers (their lost task is part of the failover, not news of its own); those it found none
   * for are left to their workflows, which hear of the loss and restart them as their policy says.
   */
  private static TermPlan failingOver(
      List<TermPlan.HealthChange> changes,
      PlacementPlan placement,
      Reconciliation reconciliation,
      List<Move> moves,
      Drainer.Outcome drain,
      List<TermPlan.WorkerRemoval> removals,
      List<Preemptor.Preemption> preemptions,
      Instant nextDeadline,
      Map<String, PlacedTask> lostWithWorker) {
    List<PlacementPlan.Placement> placed = new ArrayList<>();
    List<TermPlan.Failover> failovers = new ArrayList<>();
    Set<PlacedTask> replaced = new HashSet<>();
    for (PlacementPlan.Placement p : placement.placed()) {
      PlacedTask lost = lostWithWorker.get(p.vm());
      if (lost == null) {
        placed.add(p);
      } else {
        failovers.add(
            new TermPlan.Failover(
                p.vm(), lost.vmSeq(), lost.generation(), lost.worker(), p.worker(), p.why()));
        replaced.add(lost);
      }
    }
    List<PlacementPlan.Unplaced> waiting =
        placement.pending().stream().filter(u -> !lostWithWorker.containsKey(u.vm())).toList();
    Reconciliation rest =
        new Reconciliation(
            reconciliation.removals(),
            reconciliation.transitions().stream()
                .filter(t -> !replaced.contains(t.task()))
                .toList(),
            reconciliation.forgotten(),
            reconciliation.movesEnded());
    return new TermPlan(
        changes,
        new PlacementPlan(placed, waiting),
        rest,
        moves,
        drain.evictions(),
        drain.progress(),
        removals,
        failovers,
        preemptions,
        nextDeadline);
  }

  private static Instant earlier(Instant a, Instant b) {
    return a == null || (b != null && b.isBefore(a)) ? b : a;
  }

  /** The workers whose agents answer now: each may lend a VM's disk to another worker. */
  private static java.util.Set<String> lenders(Map<String, WorkerHealth> healthOf) {
    java.util.Set<String> ready = new java.util.HashSet<>();
    healthOf.forEach(
        (name, health) -> {
          if (health == WorkerHealth.READY) {
            ready.add(name);
          }
        });
    return ready;
  }
}
