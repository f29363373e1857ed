package dev.rota.scheduler.term;

import dev.rota.store.Columns;
import dev.rota.scheduling.ObservedTask;
import dev.rota.scheduling.PlacementPlan;
import dev.rota.scheduling.Reconciliation;
import dev.rota.scheduling.Drainer;
import dev.rota.scheduling.Move;
import dev.rota.scheduling.PlacedTask;
import dev.rota.scheduling.Rebalancing;
import dev.rota.scheduling.SetSnapshot;
import dev.rota.scheduling.TermPlan;
import dev.rota.scheduling.TermPlanner;
import dev.rota.scheduling.VmSnapshot;
import dev.rota.scheduling.WorkerSnapshot;
import dev.rota.settings.SchedulerSettings;
import dev.rota.settings.WorkerSettings;
import dev.rota.store.AgentTaskRow;
import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import dev.rota.store.TermActionRepository;
import dev.rota.store.TermActionRow;
import dev.rota.store.VmRepository;
import dev.rota.store.TermReads;
import dev.rota.store.VmSchedulingRow;
import dev.rota.store.VmSetRepository;
import dev.rota.model.Spread;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerImages;
import dev.rota.store.WorkerRemoval;
import dev.rota.store.ChangeRepository;
import dev.rota.metrics.SchedulerMetrics;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.cluster.TermDecisions;
import dev.rota.model.SchedulerProfile;
import dev.rota.model.TaskState;
import dev.rota.model.WireName;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plan-and-commit step: reads the store's snapshot (desired state and the agents' last answers),
 * lets the pure scheduling core decide, and writes the decisions in one transaction. Each write is
 * conditional on what the plan read (a version, or a status), so a decision that lost a race to the
 * API changes nothing and is planned again next term.
 */
@Singleton
public class TermCommitter {
  private static final int EXAMPLES = 8;
  private static final Logger log = LoggerFactory.getLogger(TermCommitter.class);

  private final WorkerRepository workers;
  private final VmRepository vms;
  private final TermReads reads;
  private final TermActionRepository actions;
  private final ClusterSettingsRepository settings;
  private final TransactionOperations<Connection> tx;
  private final Clock clock;
  private final WorkerSettings health;
  private final VmTaskRepository placedTasks;
  private final TaskObservations observations;
  private final ListeningSince listening;
  private final VmSetRepository sets;
  private final SchedulerSettings scheduler;
  private final WorkerImages workerImages;
  private final WorkerRemoval workerRemoval;
  private final SchedulerMetrics metrics;
  private final ChangeRepository changes;

  public TermCommitter(
      WorkerRepository workers,
      VmRepository vms,
      TermReads reads,
      TermActionRepository actions,
      ClusterSettingsRepository settings,
      TransactionOperations<Connection> tx,
      Clock clock,
      WorkerSettings health,
      VmTaskRepository placedTasks,
      TaskObservations observations,
      ListeningSince listening,
      VmSetRepository sets,
      SchedulerSettings scheduler,
      WorkerImages workerImages,
      WorkerRemoval workerRemoval,
      SchedulerMetrics metrics,
      ChangeRepository changes) {
    this.changes = changes;
    this.metrics = metrics;
    this.workerRemoval = workerRemoval;
    this.scheduler = scheduler;
    this.workerImages = workerImages;
    this.listening = listening;
    this.sets = sets;
    this.workers = workers;
    this.vms = vms;
    this.reads = reads;
    this.actions = actions;
    this.settings = settings;
    this.tx = tx;
    this.clock = clock;
    this.health = health;
    this.placedTasks = placedTasks;
    this.observations = observations;
  }

  /** What a term plans from: every row it reads, as of one moment. */
  private record Snapshot(
      Map<String, VmSchedulingRow> vmRows, List<VmSnapshot> vms, Map<String, WorkerRow> workerRows,
      List<WorkerSnapshot> workers, Map<PlacedTask, VmTaskRow> taskRows, Map<String, List<ObservedTask>> reported,
      SchedulerProfile profile, Map<String, SetSnapshot> movable) {}

  /**
   * The snapshot is read in one read-only transaction at repeatable read: every table as of one moment
   * (in PostgreSQL, one snapshot for all its statements), so that a task a report changed between two
   * reads is never seen half before and half after.
   */
  private static final io.micronaut.transaction.TransactionDefinition ONE_MOMENT = oneMoment();

  private static io.micronaut.transaction.TransactionDefinition oneMoment() {
    io.micronaut.transaction.support.DefaultTransactionDefinition d = new io.micronaut.transaction.support.DefaultTransactionDefinition();
    d.setReadOnly(true);
    d.setIsolationLevel(io.micronaut.transaction.TransactionDefinition.Isolation.REPEATABLE_READ);
    d.setName("term snapshot");
    return d;
  }

  public TermDecisions commit(long observedAtMillis) {
    long began = System.nanoTime();
    Instant now = clock.instant();
    Instant observedAt = Instant.ofEpochMilli(observedAtMillis);
    Snapshot snapshot = tx.execute(ONE_MOMENT, status -> read(status.getConnection(), now, observedAt));
    long read = System.nanoTime();
    TermPlan plan =
        TermPlanner.plan(now, listening.at(observedAt), snapshot.profile(), health.health(), snapshot.workers(),
            snapshot.vms(), List.copyOf(snapshot.taskRows().keySet()), snapshot.reported(),
            new Rebalancing(scheduler.rebalanceMovesPerTerm(), snapshot.movable()));
    long planned = System.nanoTime();
    TermDecisions decisions =
        tx.executeWrite(status -> write(plan, snapshot.workerRows(), snapshot.vmRows(), snapshot.taskRows(), now));
    if (log.isDebugEnabled()) {
      log.debug("read the snapshot in {} ms, planned in {} ms, wrote in {} ms", (read - began) / 1_000_000,
          (planned - read) / 1_000_000, (System.nanoTime() - planned) / 1_000_000);
    }
    return decisions;
  }

  private Snapshot read(Connection db, Instant now, Instant observedAt) {
    Map<String, Spread> spreads = new HashMap<>();
    Map<String, SetSnapshot> movable = new HashMap<>();
    for (VmSetRepository.SetShape s : sets.shapes()) {
      spreads.put(s.name(), Spread.parse(s.spread()).orElse(Spread.NONE));
      if (!s.deleting()) {
        movable.put(s.name(), new SetSnapshot(s.name(), s.replicas(), s.maxUnavailable()));
      }
    }
    Map<String, VmSchedulingRow> vmRows = new HashMap<>();
    List<VmSnapshot> vmSnapshots = new ArrayList<>();
    boolean imageWanted = false;
    for (VmSchedulingRow v : reads.vms(db)) {
      vmRows.put(v.name(), v);
      VmSnapshot snapshot = Snapshots.vm(v, now, spreads);
      vmSnapshots.add(snapshot);
      // Only a VM that may be placed this term looks for the image's holders (a running one may too,
      // should its task be gone); with none, the workers' images are not read at all.
      imageWanted |= v.image() != null && snapshot.wantsTask();
    }
    Map<String, WorkerRow> workerRows = new HashMap<>();
    List<WorkerSnapshot> workerSnapshots = new ArrayList<>();
    List<String> answered = new ArrayList<>();
    Map<String, Integer> taskFailures = new HashMap<>();
    workers.taskFailuresSince(now.minus(health.taskFailureWindow()))
        .forEach(c -> taskFailures.put(c.label(), (int) c.total()));
    Map<String, Map<String, Instant>> images = imageWanted ? workerImages.all() : Map.of();
    for (WorkerRow w : workers.findAll()) {
      workerRows.put(w.name(), w);
      workerSnapshots.add(Snapshots.worker(w, taskFailures.getOrDefault(w.name(), 0), images.getOrDefault(w.name(), Map.of())));
      if (w.lastProbeOk() && w.lastProbeAt() != null && !w.lastProbeAt().isBefore(observedAt)) {
        answered.add(w.name());
      }
    }
    Map<PlacedTask, VmTaskRow> taskRows = new HashMap<>();
    for (VmTaskRow t : reads.placedTasks(db)) {
      taskRows.put(Snapshots.task(t), t);
    }
    Map<String, List<ObservedTask>> reported = new HashMap<>();
    answered.forEach(w -> reported.put(w, new ArrayList<>()));
    if (!answered.isEmpty()) {
      for (AgentTaskRow t : reads.reportedTasks(db, answered)) {
        reported.get(t.worker()).add(new ObservedTask(t.taskId(), t.state(), t.exitCode(), t.message()));
      }
    }
    SchedulerProfile profile =
        settings.findById(ClusterSettingsRow.ID)
            .flatMap(s -> WireName.parse(SchedulerProfile.class, s.schedulerProfile()))
            .orElse(SchedulerProfile.OPTIMIZE_UTILIZATION);
    return new Snapshot(vmRows, vmSnapshots, workerRows, workerSnapshots, taskRows, reported, profile, movable);
  }

  private TermDecisions write(
      TermPlan plan, Map<String, WorkerRow> workerRows, Map<String, VmSchedulingRow> vmRows,
      Map<PlacedTask, VmTaskRow> taskRows,
      Instant now) {
    List<String> examples = new ArrayList<>();
    int lost = 0;
    workers.forgetTaskFailures(now.minus(health.taskFailureWindow()));
    changes.forgetBefore(now.minus(ChangeRepository.RETAINED));

    List<TaskObservations.Placing> placings = new ArrayList<>();
    for (PlacementPlan.Placement p : plan.placement().placed()) {
      VmSchedulingRow vm = vmRows.get(p.vm());
      placings.add(new TaskObservations.Placing(vm.name(), vm.seq(), vm.restartCount(), p.worker(), p.why()));
    }
    List<TaskObservations.Placing> placedNow = observations.placeAll(placings, now);
    placedNow.forEach(p -> example(examples, "placed " + p.vm() + " on " + p.worker()));
    int placed = placedNow.size();
    lost += placings.size() - placed;
    List<TermPlan.Failover> failedOver = observations.failOverAll(plan.failovers(), now);
    for (TermPlan.Failover f : failedOver) {
      metrics.failedOver();
      example(examples, "failed " + f.vm() + " over from offline worker " + f.from() + " to " + f.to());
    }
    placed += failedOver.size();
    lost += plan.failovers().size() - failedOver.size();
    for (PlacementPlan.Unplaced u : plan.placement().pending()) {
      vms.explainPending(u.vm(), Columns.truncate(u.reason(), 2048));
    }
    List<Move> movedNow = observations.moveAll(plan.moves(), now);
    movedNow.forEach(m -> example(examples, "moving " + m.vm() + " from " + m.from() + " to " + m.to() + ": " + m.why()));
    int moved = movedNow.size();
    lost += plan.moves().size() - moved;

    for (Drainer.Eviction e : plan.evictions()) {
      if (observations.evict(e, now).isPresent()) {
        metrics.evicted();
        example(examples, "evicting " + e.vm() + " from drained worker " + e.worker());
      }
    }
    plan.drainProgress().forEach((worker, progress) -> {
      String line = Columns.truncate(progress, 1024);
      if (!line.equals(workerRows.get(worker).drainProgress())) {
        workers.drainProgress(worker, line);
        example(examples, "worker " + worker + " " + line);
      }
    });

    for (TermPlan.WorkerRemoval removal : plan.removals()) {
      if (workerRemoval.removeIfSilentSince(removal.worker(), removal.lastSeen())) {
        example(examples, "removed worker " + removal.worker() + ": offline, last heard from " + removal.lastSeen());
      }
    }

    Reconciliation r = plan.reconciliation();
    for (Reconciliation.TaskRemoval removal : r.removals()) {
      actions.add(TermActionRow.REMOVE, removal.worker(), removal.taskId(), null, null, Columns.truncate(removal.why(), 2048), now);
      example(examples, "removing task " + removal.taskId() + " from " + removal.worker() + ": " + removal.why());
    }
    // Task records change in the order of their ids, as agents' reports change them: two writers that
    // take row locks in one order cannot deadlock.
    Map<String, Reconciliation.TaskTransition> transitions = new TreeMap<>();
    r.transitions().forEach(t -> transitions.put(taskRows.get(t.task()).id(), t));
    Map<String, PlacedTask> forgotten = new TreeMap<>();
    r.forgotten().forEach(t -> forgotten.put(taskRows.get(t).id(), t));
    int failures = 0;
    for (String id : new TreeSet<>(union(transitions.keySet(), forgotten.keySet()))) {
      Reconciliation.TaskTransition t = transitions.get(id);
      if (t == null) {
        placedTasks.forget(id);
      } else if (observations.reached(taskRows.get(t.task()), t.to(), t.exitCode(), t.message(), now).isPresent()) {
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
    Map<String, Instant> newCopyStarted = r.movesEnded().isEmpty() ? Map.of() : currentStarts(vmRows, taskRows);
    for (Reconciliation.MoveEnded m : r.movesEnded()) {
      if (observations.moveEnded(m, newCopyStarted.get(m.vm()), now)) {
        example(examples, "moved " + m.vm() + ": its old copy on " + m.from() + " is gone");
      }
    }
    // Workers' rows are locked last, and by name as heartbeats lock them: a heartbeat never waits for a
    // whole term's placements. Their examples still come first.
    List<String> healthExamples = new ArrayList<>();
    int healthChanges = 0;
    List<TermPlan.HealthChange> byName = new ArrayList<>(plan.healthChanges());
    byName.sort(java.util.Comparator.comparing(TermPlan.HealthChange::worker));
    for (TermPlan.HealthChange change : byName) {
      WorkerRow row = workerRows.get(change.worker());
      int n = workers.decideHealth(row.name(), row.version(), change.verdict().health().wireName(),
          Columns.truncate(change.verdict().message(), 1024), change.verdict().flakyUntil());
      if (n == 1) {
        healthChanges++;
        if (change.verdict().health() != Snapshots.health(row)) {
          example(healthExamples, "worker " + row.name() + " " + change.verdict().health().wireName());
        }
      } else {
        lost++;
      }
    }
    examples.addAll(0, healthExamples);
    while (examples.size() > EXAMPLES) {
      examples.remove(examples.size() - 1);
    }
    // Last, so that they never crowd out what the term did: why VMs still wait (the UI shows these).
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
  private static Map<String, Instant> currentStarts(Map<String, VmSchedulingRow> vmRows, Map<PlacedTask, VmTaskRow> taskRows) {
    Map<String, Instant> started = new HashMap<>();
    for (VmTaskRow t : taskRows.values()) {
      VmSchedulingRow vm = vmRows.get(t.vm());
      if (vm != null && t.startedAt() != null && vm.seq() == t.vmSeq() && vm.restartCount() == t.generation()) {
        started.put(t.vm(), t.startedAt());
      }
    }
    return started;
  }

  private static List<String> union(java.util.Collection<String> a, java.util.Collection<String> b) {
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
