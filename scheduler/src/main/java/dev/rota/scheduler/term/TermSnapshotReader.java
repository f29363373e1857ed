package dev.rota.scheduler.term;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.Spread;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.WireName;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.core.scheduling.PlacedTask;
import dev.rota.core.scheduling.SetSnapshot;
import dev.rota.core.scheduling.VmSnapshot;
import dev.rota.core.scheduling.WorkerSnapshot;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.store.AgentTaskRow;
import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import dev.rota.store.TermReads;
import dev.rota.store.VmSchedulingRow;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerImages;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The term's read-only state (Nomad's {@code State}): the snapshot it plans from, read in one
 * transaction as of one moment.
 */
@Singleton
public class TermSnapshotReader {
  private final TransactionOperations<Connection> tx;
  private final VmSetRepository sets;
  private final TermReads reads;
  private final WorkerRepository workers;
  private final WorkerSettings health;
  private final WorkerImages workerImages;
  private final ClusterSettingsRepository settings;
  private final dev.rota.store.NamespaceRepository namespaces;

  public TermSnapshotReader(
      TransactionOperations<Connection> tx,
      VmSetRepository sets,
      TermReads reads,
      WorkerRepository workers,
      WorkerSettings health,
      WorkerImages workerImages,
      ClusterSettingsRepository settings,
      dev.rota.store.NamespaceRepository namespaces) {
    this.namespaces = namespaces;
    this.tx = tx;
    this.sets = sets;
    this.reads = reads;
    this.workers = workers;
    this.health = health;
    this.workerImages = workerImages;
    this.settings = settings;
  }

  /**
   * The snapshot is read in one read-only transaction at repeatable read: every table as of one
   * moment (in PostgreSQL, one snapshot for all its statements), so that a task a report changed
   * between two reads is never seen half before and half after.
   */
  private static final io.micronaut.transaction.TransactionDefinition ONE_MOMENT = oneMoment();

  private static io.micronaut.transaction.TransactionDefinition oneMoment() {
    io.micronaut.transaction.support.DefaultTransactionDefinition d =
        new io.micronaut.transaction.support.DefaultTransactionDefinition();
    d.setReadOnly(true);
    d.setIsolationLevel(io.micronaut.transaction.TransactionDefinition.Isolation.REPEATABLE_READ);
    d.setName("term snapshot");
    return d;
  }

  /**
   * How far apart two hosts' clocks may be: one host's term asks the agents, another's API may
   * record the start an agent reports.
   */
  static final java.time.Duration CLOCKS_APART = java.time.Duration.ofSeconds(1);

  /**
   * The snapshot at {@code now}, trusting the task lists of agents that answered since {@code
   * observedAt}.
   *
   * <p>A start recorded since the agents were asked (the agent's own report of a start whose call
   * answered late) may be missing from a list made before it. As of the lists that start was under
   * way, and the task is planned as such rather than found vanished; the next term's lists speak
   * for it.
   */
  public TermSnapshot read(Instant now, Instant observedAt) {
    return read(now, observedAt, false);
  }

  /**
   * As {@link #read(Instant, Instant)}; with {@code imagesWanted}, the workers' images are read
   * whatever the VMs read want (a VM not stored yet may want them).
   */
  public TermSnapshot read(Instant now, Instant observedAt, boolean imagesWanted) {
    return tx.execute(
        ONE_MOMENT, status -> read(status.getConnection(), now, observedAt, imagesWanted));
  }

  private TermSnapshot read(
      Connection db, Instant now, Instant observedAt, boolean imagesWantedAnyway) {
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
    boolean imageWanted = imagesWantedAnyway;
    for (VmSchedulingRow v : reads.vms(db)) {
      vmRows.put(v.name(), v);
      VmSnapshot snapshot = Snapshots.vm(v, now, spreads);
      vmSnapshots.add(snapshot);
      // Only a VM that may be placed this term looks for the image's holders (a running one may
      // too, should its task be gone); with none, the workers' images are not read at all.
      imageWanted |= v.image() != null && snapshot.wantsTask();
    }
    Map<String, WorkerRow> workerRows = new HashMap<>();
    List<WorkerSnapshot> workerSnapshots = new ArrayList<>();
    List<String> answered = new ArrayList<>();
    Map<String, Integer> taskFailures = new HashMap<>();
    workers
        .taskFailuresSince(now.minus(health.taskFailureWindow()))
        .forEach(c -> taskFailures.put(c.label(), (int) c.total()));
    Map<String, Map<String, Instant>> images = imageWanted ? workerImages.all() : Map.of();
    for (WorkerRow w : workers.findAll()) {
      workerRows.put(w.name(), w);
      workerSnapshots.add(
          Snapshots.worker(
              w, taskFailures.getOrDefault(w.name(), 0), images.getOrDefault(w.name(), Map.of())));
      if (w.lastProbeOk() && w.lastProbeAt() != null && !w.lastProbeAt().isBefore(observedAt)) {
        answered.add(w.name());
      }
    }
    Map<String, List<ObservedTask>> reported = new HashMap<>();
    Set<String> listed = new HashSet<>();
    answered.forEach(w -> reported.put(w, new ArrayList<>()));
    if (!answered.isEmpty()) {
      for (AgentTaskRow t : reads.reportedTasks(db, answered)) {
        reported
            .get(t.worker())
            .add(
                new ObservedTask(t.taskId(), t.state(), t.exitCode(), t.message(), t.submission()));
        listed.add(t.worker() + "/" + t.taskId());
      }
    }
    Map<PlacedTask, VmTaskRow> taskRows = new HashMap<>();
    Instant surelyListed = observedAt.minus(CLOCKS_APART);
    for (VmTaskRow t : reads.placedTasks(db)) {
      PlacedTask task = Snapshots.task(t);
      boolean startedSinceAsked =
          task.state() == TaskState.RUNNING
              && t.startedAt() != null
              && !t.startedAt().isBefore(surelyListed)
              && reported.containsKey(t.worker())
              && !listed.contains(t.worker() + "/" + t.taskId());
      taskRows.put(startedSinceAsked ? task.withState(TaskState.SCHEDULED) : task, t);
    }
    java.util.Optional<ClusterSettingsRow> cluster = settings.findById(ClusterSettingsRow.ID);
    SchedulerProfile profile =
        cluster
            .flatMap(s -> WireName.parse(SchedulerProfile.class, s.schedulerProfile()))
            .orElse(SchedulerProfile.OPTIMIZE_UTILIZATION);
    String pausedBecause =
        cluster
            .filter(ClusterSettingsRow::schedulingPaused)
            .map(s -> s.pauseReason() == null ? "no reason given" : s.pauseReason())
            .orElse(null);
    return new TermSnapshot(
        vmRows,
        vmSnapshots,
        workerRows,
        workerSnapshots,
        taskRows,
        reported,
        profile,
        movable,
        pausedBecause,
        cluster.map(ClusterSettingsRow::preemption).orElse(false),
        quotas());
  }

  /** Each namespace's quota that limits anything, by namespace: few rows. */
  private Map<String, dev.rota.core.model.Quota> quotas() {
    Map<String, dev.rota.core.model.Quota> quotas = new HashMap<>();
    for (dev.rota.store.NamespaceRow n : namespaces.findAll()) {
      if (n.quota().limits()) {
        quotas.put(n.name(), n.quota());
      }
    }
    return quotas;
  }
}
