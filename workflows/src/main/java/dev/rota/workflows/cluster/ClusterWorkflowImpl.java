package dev.rota.workflows.cluster;

import dev.rota.workflows.ActivityDefaults;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.Timers;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.ContinueAsNewOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The term loop. Each term is one activity: observe the agents, plan and commit (health, placement,
 * reconciliation by the pure scheduling core on the store's snapshot, so that no snapshot of the
 * cluster passes through this history), apply the queued actions, record the term. The history
 * grows by the same few events per term whatever the cluster's size. Between terms it waits for the
 * interval (longer while nothing changes, up to the idle interval), the nearest health deadline, or
 * a wake-up signal, whichever comes first.
 */
public class ClusterWorkflowImpl implements ClusterWorkflow {
  /**
   * Continue-as-new once a run's history passes this many events even if the server has not
   * suggested it yet: the embedded test server never suggests it, and a short history keeps replay
   * cheap.
   */
  static final int HISTORY_EVENTS_PER_RUN = 2_000;

  /** Workflow.getVersion change id: the next run continues on the scheduler's own task queue. */
  static final String OWN_TASK_QUEUE = "scheduler-own-task-queue";

  /** How soon a term that started tasks is followed by one that sees them run. */
  private static final Duration OBSERVE_STARTS_AFTER = Duration.ofMillis(300);

  /** A deadline closer than this is waited for this long: health is judged in whole terms. */
  private static final Duration MIN_WAIT = Duration.ofMillis(200);

  /** Actions an agent did not take are tried again this soon, not a whole interval later. */
  private static final Duration RETRY_ACTIONS_AFTER = Duration.ofSeconds(1);

  /**
   * The longest wait between two tries of a failing term until a term has told the scheduler's
   * interval.
   */
  private static final Duration FIRST_RETRY_CAP = Duration.ofSeconds(5);

  /**
   * A failing term (the database away) is tried again from 1 s, doubling, up to the scheduler's
   * interval: once the database is back the next try comes within an interval, not after a back-off
   * grown long.
   */
  private Duration retryCap = FIRST_RETRY_CAP;

  private TermSummary lastTerm;
  private boolean wakeRequested;

  /**
   * Consecutive terms in which nothing changed; the wait grows with them, up to the idle interval.
   */
  private int quietTerms;

  @Override
  public void run(ClusterState state) {
    long term = state.termsDone();
    lastTerm = state.lastTerm();
    wakeRequested = wakeRequested || state.wakePending();
    while (true) {
      term++;
      Duration wait = term(term);
      if (shouldContinueAsNew()) {
        // Handlers must finish first, or their work would be lost with this run.
        Workflow.await(Workflow::isEveryHandlerFinished);
        continueAsNew(new ClusterState(term, lastTerm, wakeRequested));
      }
      Timers.sleepUnless(wait, TermLines.done(lastTerm, wait), () -> wakeRequested);
    }
  }

  /**
   * One term, one activity (observe, plan, commit, apply, record); returns how long to wait for the
   * next.
   */
  private Duration term(long term) {
    boolean woken = wakeRequested;
    wakeRequested = false;
    long startedAt = Workflow.currentTimeMillis();
    TermOutcome outcome =
        terms(retryCap, TermLines.starting(term, woken, lastTerm))
            .termAndApply(new TermStart(term, startedAt, woken));
    TermDecisions decided = outcome.decisions();
    ApplyResult applied = outcome.applied();
    // The term began when its activity began to observe, which is later than it was asked for when
    // the activity waited (for a host's pollers, or for Temporal itself to come back): the API
    // tells the former.
    long began = Math.max(startedAt, outcome.observation().observedAtMillis());
    lastTerm =
        new TermSummary(
            term,
            began,
            Math.max(0, Workflow.currentTimeMillis() - began),
            woken,
            decided,
            applied);
    quietTerms = outcome.quiet() && !woken ? quietTerms + 1 : 0;
    Duration interval = Duration.ofMillis(outcome.observation().intervalMillis());
    // Not under the first try's 1 s: a retry policy's cap may not be below its initial interval.
    retryCap = max(interval, Duration.ofSeconds(1));
    Duration stretched = interval;
    long idle = outcome.observation().idleIntervalMillis();
    for (int i = 0; i < quietTerms && idle > 0 && stretched.toMillis() < idle; i++) {
      stretched = min(stretched.multipliedBy(2), Duration.ofMillis(idle));
    }
    Duration wait = untilNextTerm(stretched, decided, applied);
    Workflow.setCurrentDetails(details(lastTerm, outcome.observation(), wait));
    return wait;
  }

  /**
   * The term's activity, its summary what the term starts from ({@link TermLines}). It heartbeats,
   * so that when the host running it dies another host runs the term again within seconds, not
   * after the 30 s start-to-close timeout.
   */
  private static ClusterActivities terms(Duration retryCap, String summary) {
    return Workflow.newActivityStub(
        ClusterActivities.class,
        ActivityOptions.newBuilder(ActivityDefaults.heartbeating(retryCap))
            .setSummary(summary)
            .build());
  }

  /**
   * The interval, or less: until the nearest health deadline (a worker turning lost or offline is
   * acted on when it happens, not up to an interval later), or soon when actions are left over.
   */
  private static Duration untilNextTerm(
      Duration interval, TermDecisions decided, ApplyResult applied) {
    Duration wait = interval;
    if (applied.started() > 0) {
      // Tasks were just started: see them running (or failing) soon, not an interval later.
      wait = min(wait, OBSERVE_STARTS_AFTER);
    }
    if (decided.nextDeadlineMillis() > 0) {
      Duration toDeadline =
          Duration.ofMillis(decided.nextDeadlineMillis() - Workflow.currentTimeMillis());
      wait = min(wait, max(toDeadline, MIN_WAIT));
    }
    if (applied.remaining() > 0) {
      wait = min(wait, RETRY_ACTIONS_AFTER);
    }
    return wait;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public void wake(String reason) {
    wakeRequested = true;
  }

  @Override
  public TermSummary lastTerm() {
    return lastTerm;
  }

  /**
   * The next run goes to the scheduler's own task queue: a run started on the control queue by an
   * earlier version moves there now. Versioned: a run recorded before it continued on its own
   * queue.
   */
  private static void continueAsNew(ClusterState state) {
    if (Workflow.getVersion(OWN_TASK_QUEUE, Workflow.DEFAULT_VERSION, 1)
        == Workflow.DEFAULT_VERSION) {
      Workflow.continueAsNew(state);
    } else {
      Workflow.continueAsNew(
          ContinueAsNewOptions.newBuilder().setTaskQueue(TaskQueues.SCHEDULER).build(), state);
    }
  }

  private static boolean shouldContinueAsNew() {
    var info = Workflow.getInfo();
    return info.isContinueAsNewSuggested() || info.getHistoryLength() > HISTORY_EVENTS_PER_RUN;
  }

  private static String details(TermSummary s, TermObservation seen, Duration wait) {
    TermDecisions d = s.decisions();
    return "term "
        + s.term()
        + (s.woken() ? " (woken early)" : "")
        + ": "
        + seen.answered()
        + "/"
        + seen.probed()
        + " agents answered; placed "
        + d.placed()
        + ", moved "
        + d.moved()
        + ", "
        + d.pending()
        + " pending, "
        + d.failures()
        + " failed, "
        + d.removals()
        + " orphans removed, "
        + d.healthChanges()
        + " health changes; next term within "
        + wait.toMillis()
        + " ms or on wake-up"
        + (d.examples() == null || d.examples().isEmpty()
            ? ""
            : "\n\n- " + String.join("\n- ", d.examples()));
  }
}
