package dev.rota.scheduler.term;

import dev.rota.core.model.TaskState;
import dev.rota.core.scheduling.Drainer;
import dev.rota.core.scheduling.Move;
import dev.rota.core.scheduling.PlacedTask;
import dev.rota.core.scheduling.PlacementPlan;
import dev.rota.core.scheduling.Preemptor;
import dev.rota.core.scheduling.Reconciliation;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.scheduler.metrics.SchedulerMetrics;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.store.ChangeRepository;
import dev.rota.store.Columns;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmSchedulingRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerRemoval;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.cluster.TermDecisions;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The term's planner side (Nomad's {@code Planner} submitting its plan): writes a plan's decisions
 * in one transaction. Each write is conditional on what the plan read (a version, or a status), so
 * a decision that lost a race to the API changes nothing, is counted as lost and is planned again
 * next term.
 */
@Singleton
public class TermPlanWriter {
  private static final int EXAMPLES = 8;

  private final TransactionOperations<Connection> tx;
  private final WorkerRepository workers;
  private final WorkerSettings health;
  private final ChangeRepository changes;
  private final TaskObservations observations;
  private final VmRepository vms;
  private final WorkerRemoval workerRemoval;
  private final OutboxRepository actions;
  private final VmTaskRepository placedTasks;
  private final SchedulerMetrics metrics;

  public TermPlanWriter(
      TransactionOperations<Connection> tx,
      WorkerRepository workers,
      WorkerSettings health,
      ChangeRepository changes,
      TaskObservations observations,
      VmRepository vms,
      WorkerRemoval workerRemoval,
      OutboxRepository actions,
      VmTaskRepository placedTasks,
      SchedulerMetrics metrics) {
    this.tx = tx;
    this.workers = workers;
    this.health = health;
    this.changes = changes;
    this.observations = observations;
    this.vms = vms;
    this.workerRemoval = workerRemoval;
    this.actions = actions;
    this.placedTasks = placedTasks;
    this.metrics = metrics;
  }

  /**
   * Writes {@code plan}, made from {@code snapshot} at {@code now}, in one transaction; says what
   * it did.
   */
  public TermDecisions write(TermPlan plan, TermSnapshot snapshot, Instant now) {
    return tx.executeWrite(
        status -> write(plan, snapshot.workerRows(), snapshot.vmRows(), snapshot.taskRows(), now));
  }

  /** Whether the VM of {@code task} was moving when the term read it; null when not read. */
  private static Boolean movingAt(Map<String, VmSchedulingRow> vmRows, PlacedTask task) {
    VmSchedulingRow vm = vmRows.get(task.vm());
    return vm == null || vm.seq() != task.vmSeq() ? null : vm.movingFrom() != null;
  }

  private TermDecisions write(
      TermPlan plan,
      Map<String, WorkerRow> workerRows,
      Map<String, VmSchedulingRow> vmRows,
      Map<PlacedTask, VmTaskRow> taskRows,
      Instant now) {
    List<String> examples = new ArrayList<>();
    int lost = 0;
    workers.forgetTaskFailures(now.minus(health.taskFailureWindow()));
    changes.forgetBefore(now.minus(ChangeRepository.RETAINED));

    java.util.function.UnaryOperator<String> taskNames =
        vm -> {
          VmSchedulingRow row = vmRows.get(vm);
          return row == null || row.taskName() == null ? vm : row.taskName();
        };
    List<TaskObservations.Placing> placings = new ArrayList<>();
    for (PlacementPlan.Placement p : plan.placement().placed()) {
      VmSchedulingRow vm = vmRows.get(p.vm());
      placings.add(
          new TaskObservations.Placing(
              vm.name(),
              vm.seq(),
              vm.restartCount(),
              p.worker(),
              p.why(),
              taskNames.apply(vm.name())));
    }
    List<TaskObservations.Placing> placedNow = observations.placeAll(placings, now);
    for (TaskObservations.Placing p : placedNow) {
      VmSchedulingRow vm = vmRows.get(p.vm());
      if (vm.persistentDisk() && vm.diskOn() == null) {
        vms.diskOn(p.vm(), p.vmSeq(), p.worker()); // its disk is made there: it stays there
      } else if (vm.diskOn() != null && !vm.diskOn().equals(p.worker())) {
        // Its disk's worker could not take it but lends it: the disk (and saved memory) is
        // copied to where it goes.
        vms.moveDiskTo(p.vm(), p.vmSeq(), vm.diskOn(), p.worker());
      }
    }
    placedNow.forEach(p -> example(examples, "placed " + p.vm() + " on " + p.worker()));
    int placed = placedNow.size();
    lost += placings.size() - placed;
    List<TermPlan.Failover> failedOver = observations.failOverAll(plan.failovers(), taskNames, now);
    for (TermPlan.Failover f : failedOver) {
      metrics.failedOver();
      example(
          examples, "failed " + f.vm() + " over from offline worker " + f.from() + " to " + f.to());
    }
    placed += failedOver.size();
    lost += plan.failovers().size() - failedOver.size();
    for (PlacementPlan.Unplaced u : plan.placement().pending()) {
      vms.explainPending(u.vm(), Columns.truncate(u.reason(), 2048), u.fitsNowhere());
    }
    List<Move> movedNow = observations.moveAll(plan.moves(), taskNames, now);
    movedNow.forEach(
        m ->
            example(
                examples,
                "moving " + m.vm() + " from " + m.from() + " to " + m.to() + ": " + m.why()));
    int moved = movedNow.size();
    lost += plan.moves().size() - moved;

    for (Drainer.Eviction e : plan.evictions()) {
      if (observations.evict(e, taskNames.apply(e.vm()), now).isPresent()) {
        metrics.evicted();
        example(examples, "evicting " + e.vm() + " from drained worker " + e.worker());
      }
    }
    for (Preemptor.Preemption p : plan.preemptions()) {
      if (observations.preempt(p, taskNames.apply(p.vm()), now).isPresent()) {
        metrics.preempted();
        example(
            examples,
            "preempting "
                + p.vm()
                + " on "
                + p.worker()
                + " for "
                + p.forVm()
                + " (priority "
                + p.forPriority()
                + " over "
                + p.priority()
                + ")");
      }
    }
    plan.drainProgress()
        .forEach(
            (worker, progress) -> {
              String line = Columns.truncate(progress, 1024);
              if (!line.equals(workerRows.get(worker).drainProgress())) {
                workers.drainProgress(worker, line);
                example(examples, "worker " + worker + " " + line);
              }
            });

    for (TermPlan.WorkerRemoval removal : plan.removals()) {
      if (workerRemoval.removeIfSilentSince(removal.worker(), removal.lastSeen())) {
        example(
            examples,
            "removed worker "
                + removal.worker()
                + ": offline, last heard from "
                + removal.lastSeen());
      }
    }

    Reconciliation r = plan.reconciliation();
    for (Reconciliation.TaskRemoval removal : r.removals()) {
      actions.add(
          removal.vmGone() ? OutboxRow.DISCARD : OutboxRow.REMOVE,
          removal.worker(),
          removal.taskId(),
          null,
          removal.submission(),
          Columns.truncate(removal.why(), 2048),
          now);
      example(
          examples,
          "removing task " + removal.taskId() + " from " + removal.worker() + ": " + removal.why());
    }
    // Task records change in the order of their ids, as agents' reports change them: two writers
    // that take row locks in one order cannot deadlock.
    Map<String, Reconciliation.TaskTransition> transitions = new TreeMap<>();
    r.transitions().forEach(t -> transitions.put(taskRows.get(t.task()).id(), t));
    Map<String, PlacedTask> forgotten = new TreeMap<>();
    r.forgotten().forEach(t -> forgotten.put(taskRows.get(t).id(), t));
    int failures = 0;
    for (String id : new TreeSet<>(union(transitions.keySet(), forgotten.keySet()))) {
      Reconciliation.TaskTransition t = transitions.get(id);
      if (t == null) {
        placedTasks.forget(id);
      } else if (observations
          .reached(
              taskRows.get(t.task()),
              t.to(),
              t.exitCode(),
              t.message(),
              now,
              null,
              movingAt(vmRows, t.task()))
          .isPresent()) {
        if (t.to() == TaskState.VANISHED || t.to() == TaskState.LOST) {
          failures++; // ended without its agent saying how
        }
        if (!t.to().live()) {
          example(examples, t.message());
        }
      } else {
        lost++;
      }
    }
    Map<String, Instant> newCopyStarted =
        r.movesEnded().isEmpty() ? Map.of() : currentStarts(vmRows, taskRows);
    for (Reconciliation.MoveEnded m : r.movesEnded()) {
      if (observations.moveEnded(m, newCopyStarted.get(m.vm()), now)) {
        example(examples, "moved " + m.vm() + ": its old copy on " + m.from() + " is gone");
      }
    }
    // Workers' rows are locked last, and by name as heartbeats lock them: a heartbeat never waits
    // for a whole term's placements. Their examples still come first.
    List<String> healthExamples = new ArrayList<>();
    int healthChanges = 0;
    List<TermPlan.HealthChange> byName = new ArrayList<>(plan.healthChanges());
    byName.sort(java.util.Comparator.comparing(TermPlan.HealthChange::worker));
    for (TermPlan.HealthChange change : byName) {
      WorkerRow row = workerRows.get(change.worker());
      int n =
          workers.decideHealth(
              row.name(),
              row.version(),
              change.verdict().health().wireName(),
              Columns.truncate(change.verdict().message(), 1024),
              change.verdict().flakyUntil());
      if (n == 1) {
        healthChanges++;
        if (change.verdict().health() != Snapshots.health(row)) {
          example(
              healthExamples, "worker " + row.name() + " " + change.verdict().health().wireName());
        }
      } else {
        lost++;
      }
    }
    examples.addAll(0, healthExamples);
    while (examples.size() > EXAMPLES) {
      examples.remove(examples.size() - 1);
    }
    // Last, so that they never crowd out what the term did: why VMs still wait (the UI shows
    // these).
    for (PlacementPlan.Unplaced u : plan.placement().pending()) {
      if (examples.size() >= EXAMPLES) {
        break; // thousands may wait: no string is built for one that will not be shown
      }
      example(examples, "pending " + u.vm() + ": " + u.reason());
    }
    return new TermDecisions(
        placed,
        moved,
        plan.placement().pending().size(),
        healthChanges,
        r.removals().size(),
        failures,
        lost,
        plan.nextDeadline() == null ? 0 : plan.nextDeadline().toEpochMilli(),
        actions.pending(),
        examples);
  }

  /** When each VM's current task started, of those that did. */
  private static Map<String, Instant> currentStarts(
      Map<String, VmSchedulingRow> vmRows, Map<PlacedTask, VmTaskRow> taskRows) {
    Map<String, Instant> started = new HashMap<>();
    for (VmTaskRow t : taskRows.values()) {
      VmSchedulingRow vm = vmRows.get(t.vm());
      if (vm != null
          && t.startedAt() != null
          && vm.seq() == t.vmSeq()
          && vm.restartCount() == t.generation()) {
        started.put(t.vm(), t.startedAt());
      }
    }
    return started;
  }

  private static List<String> union(
      java.util.Collection<String> a, java.util.Collection<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static void example(List<String> examples, String text) {
    if (examples.size() < EXAMPLES) {
      examples.add(text);
    }
  }
}
