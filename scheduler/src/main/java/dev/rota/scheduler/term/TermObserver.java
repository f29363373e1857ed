package dev.rota.scheduler.term;

import dev.rota.agentapi.TaskView;
import dev.rota.core.scheduling.HealthJudge;
import dev.rota.core.scheduling.WorkerProbeState;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.agents.Probe;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.scheduler.settings.SchedulerSettings;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.store.AgentTaskRepository;
import dev.rota.store.AgentTaskRow;
import dev.rota.store.BatchStatement;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.Columns;
import dev.rota.store.TermReads;
import dev.rota.store.WorkerProbeRow;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermObservation;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The observe step: asks the agents that are due for their readiness and their tasks, at once with
 * a shared deadline, at most {@link #PROBE_ROUNDS} rounds of the calls made at once (the longest
 * due first, {@link HealthJudge#probesDue}), and records the answers (actual state) in the store.
 */
@Singleton
public class TermObserver {
  static final int PROBE_ROUNDS = 4;
  private final WorkerRepository workers;
  private final BatchStatement probeAnswered = BatchStatement.of(WorkerRepository.PROBE_ANSWERED);
  private final BatchStatement probeFailed = BatchStatement.of(WorkerRepository.PROBE_FAILED);
  private final AgentTaskRepository tasks;
  private final TermReads reads;
  private final AgentClient agents;
  private final ExecutorService calls;
  private final TransactionOperations<Connection> tx;
  private final Clock clock;
  private final SchedulerSettings scheduler;
  private final WorkerSettings health;
  private final AgentCallSettings agentCalls;
  private final ClusterStatusRepository wakes;

  public TermObserver(
      WorkerRepository workers,
      AgentTaskRepository tasks,
      TermReads reads,
      AgentClient agents,
      @Named(AgentCalls.EXECUTOR) ExecutorService calls,
      TransactionOperations<Connection> tx,
      Clock clock,
      SchedulerSettings scheduler,
      WorkerSettings health,
      AgentCallSettings agentCalls,
      ClusterStatusRepository wakes) {
    this.workers = workers;
    this.tasks = tasks;
    this.reads = reads;
    this.agents = agents;
    this.calls = calls;
    this.tx = tx;
    this.clock = clock;
    this.scheduler = scheduler;
    this.health = health;
    this.agentCalls = agentCalls;
    this.wakes = wakes;
  }

  public TermObservation observe() {
    return observe(() -> {}, false);
  }

  /**
   * {@link #observe()}, asking {@code alive} before it writes what it saw: a stale term writes
   * nothing. With {@code checksLater}, as a term that a wake-up started (someone waits on its
   * placements) does, it asks now only the agents whose answer decides where VMs may go ({@link
   * HealthJudge#probeDecidesPlacement}) and leaves the routine checks of ready workers to {@link
   * #checkReady} after its actions. Asked first, they held a burst's placements back by a round of
   * calls to most of the fleet.
   */
  public TermObservation observe(dev.rota.scheduler.Heartbeats.Beating alive, boolean checksLater) {
    wakes.clearWake(ClusterWorkflow.WORKFLOW_ID);
    return probe(checksLater ? HealthJudge::probeDecidesPlacement : w -> true, alive::stillCurrent);
  }

  /**
   * The routine checks of ready workers that {@link #observe(dev.rota.scheduler.Heartbeats.Beating,
   * boolean)} left, after the term's actions: what its next term will read. A wake-up that came
   * meanwhile does not stop their writes; losing the attempt does.
   */
  public TermObservation checkReady(dev.rota.scheduler.Heartbeats.Beating alive) {
    return probe(w -> !HealthJudge.probeDecidesPlacement(w), alive::stillOurs);
  }

  private TermObservation probe(
      java.util.function.Predicate<WorkerProbeState> askNow,
      java.util.function.Consumer<String> beforeWriting) {
    Instant now = clock.instant();
    Duration timeout = agentCalls.timeout();
    Map<WorkerProbeRow, Future<Probe>> asked = new LinkedHashMap<>();
    Set<String> sent = ConcurrentHashMap.newKeySet();
    Map<String, WorkerProbeRow> byName = new HashMap<>();
    List<WorkerProbeState> states = new ArrayList<>();
    for (WorkerProbeRow w : workers.probeRows()) {
      byName.put(w.name(), w);
      states.add(Snapshots.probeState(w));
    }
    for (WorkerProbeState due :
        HealthJudge.probesDue(
            states.stream().filter(askNow).toList(), now, health.health(), probesPerTerm())) {
      WorkerProbeRow w = byName.get(due.name());
      asked.put(
          w,
          calls.submit(
              () -> {
                sent.add(w.name());
                return agents.probe(w.agent(), timeout);
              }));
    }
    int answered = 0;
    List<Map.Entry<WorkerProbeRow, Probe>> results = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.MILLISECONDS.toNanos(250);
    for (Future<Probe> f : asked.values()) {
      if (!finishedBy(f, deadline)) {
        break;
      }
    }
    // What is left stops now: the calls still queued first (the newest), then those under way, so
    // that no queued call takes the thread an interrupted one gives back.
    List<Future<Probe>> newestFirst = new ArrayList<>(asked.values());
    java.util.Collections.reverse(newestFirst);
    newestFirst.forEach(f -> f.cancel(true));
    for (Map.Entry<WorkerProbeRow, Future<Probe>> e : asked.entrySet()) {
      if (e.getValue().isCancelled() && !sent.contains(e.getKey().name())) {
        // Never sent: the calls ahead of it took the time (a loaded host, many agents due at once).
        // That says nothing of the agent; it is still due, and asked next term.
        continue;
      }
      Probe probe = outcome(e.getValue(), timeout);
      results.add(Map.entry(e.getKey(), probe));
      if (probe.answered()) {
        answered++;
      }
    }
    // The task lists first, then the answers in a short transaction of their own: a worker's row,
    // which its heartbeats write too, is locked only while its answer is written, not while a
    // thousand lists are (heartbeats waiting on it held up every write committed with them). Should
    // this process die between the two, the lists are newer than the answers say, and the term
    // counts only answers.
    Map<String, List<TaskView>> lists = new LinkedHashMap<>();
    List<Map<String, Object>> answers = new ArrayList<>();
    List<Map<String, Object>> failures = new ArrayList<>();
    // Rows are locked in the order of their names, as heartbeats committed together lock them: no
    // deadlock.
    results.sort(Map.Entry.comparingByKey(java.util.Comparator.comparing(WorkerProbeRow::name)));
    for (Map.Entry<WorkerProbeRow, Probe> r : results) {
      String name = r.getKey().name();
      if (r.getValue().answered()) {
        lists.put(name, r.getValue().tasks());
        answers.add(Map.of("name", name, "at", now));
      } else {
        Map<String, Object> failure = new java.util.HashMap<>();
        failure.put("name", name);
        failure.put("at", now);
        failure.put("error", Columns.truncate(r.getValue().error(), 1024));
        failures.add(failure);
      }
    }
    beforeWriting.accept("storing what the agents said");
    if (!lists.isEmpty()) {
      tx.executeWrite(
          status -> {
            store(lists, now);
            return null;
          });
    }
    if (!results.isEmpty()) {
      tx.executeWrite(
          status -> {
            probeAnswered.run(status.getConnection(), answers);
            probeFailed.run(status.getConnection(), failures);
            return null;
          });
    }
    return new TermObservation(
        scheduler.interval().toMillis(),
        now.toEpochMilli(),
        results.size(),
        answered,
        scheduler.idleInterval().toMillis());
  }

  /**
   * Four rounds of the calls made at once: what one term asks, with a deadline of one call's
   * timeout.
   */
  private int probesPerTerm() {
    return PROBE_ROUNDS * agentCalls.parallelism();
  }

  /**
   * Whether the call finished (either way) by the shared deadline: a hung agent delays only itself.
   */
  private static boolean finishedBy(Future<Probe> future, long deadlineNanos) {
    try {
      future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException | java.util.concurrent.CancellationException e) {
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The probe's answer, or a failure: stopped at the deadline, or failed. */
  private static Probe outcome(Future<Probe> future, Duration timeout) {
    if (future.isCancelled()) {
      return Probe.failed("no answer within " + timeout.toMillis() + " ms");
    }
    try {
      return future.get();
    } catch (ExecutionException e) {
      return Probe.failed(String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Probe.failed("interrupted");
    }
  }

  /**
   * Brings the stored task lists of the agents that answered up to date, writing only what changed:
   * in a steady cluster an agent's list is the same term after term, and rewriting it was most of a
   * term's database work.
   */
  private void store(Map<String, List<TaskView>> all, Instant now) {
    // A list older than one a later term stored is dropped: a term that stalled after asking (a
    // long pause) must not put back tasks the agent has since ended or removed.
    Map<String, List<TaskView>> lists = new LinkedHashMap<>(all);
    workers.probedAfter(all.keySet(), now).forEach(lists::remove);
    if (lists.isEmpty()) {
      return;
    }
    Map<String, AgentTaskRow> stored = new HashMap<>();
    for (AgentTaskRow row : reads.reportedTasks(tx.getConnection(), lists.keySet())) {
      stored.put(row.id(), row);
    }
    Map<String, AgentTaskRow> reported = new LinkedHashMap<>();
    for (Map.Entry<String, List<TaskView>> list : lists.entrySet()) {
      for (TaskView t : list.getValue()) {
        AgentTaskRow row =
            AgentTaskRow.of(
                list.getKey(),
                Columns.truncate(t.id(), 128),
                Columns.truncate(t.state(), 16),
                t.exitCode(),
                Columns.truncate(t.message(), 2048),
                now,
                t.ports(),
                t.submission());
        reported.putIfAbsent(row.id(), row);
      }
    }
    List<AgentTaskRow> added = new ArrayList<>();
    List<AgentTaskRow> changed = new ArrayList<>();
    for (AgentTaskRow row : reported.values()) {
      AgentTaskRow before = stored.get(row.id());
      if (before == null) {
        added.add(row);
      } else if (!before.sameReport(row)) {
        changed.add(row);
      }
    }
    List<String> gone = stored.keySet().stream().filter(id -> !reported.containsKey(id)).toList();
    if (!gone.isEmpty()) {
      tasks.deleteByIdInList(gone);
    }
    if (!added.isEmpty()) {
      tasks.saveAll(added);
    }
    if (!changed.isEmpty()) {
      tasks.updateAll(changed);
    }
  }
}
