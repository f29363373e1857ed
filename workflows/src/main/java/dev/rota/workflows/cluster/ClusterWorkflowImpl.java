package dev.rota.workflows.cluster;

import dev.rota.workflows.ActivityDefaults;
import dev.rota.workflows.Timers;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The term loop: observe the agents, plan and commit (health, placement, reconciliation by the pure
 * scheduling core, run by the commit activity on the store's snapshot so that no snapshot of the
 * cluster passes through this history), apply the queued actions, record the term. The history grows
 * by the same few events per term whatever the cluster's size. Between terms it waits for the configured interval or a wake-up signal,
 * whichever comes first.
 */
public class ClusterWorkflowImpl implements ClusterWorkflow {
  /**
   * Continue-as-new once a run's history passes this many events even if the server has not suggested
   * it yet: the embedded test server never suggests it, and a short history keeps replay cheap.
   */
  static final int HISTORY_EVENTS_PER_RUN = 2_000;

  private static final Logger log = Workflow.getLogger(ClusterWorkflowImpl.class);
  static final String PLAN_COMMIT_APPLY = "plan-commit-apply";
  static final String OBSERVE_STARTS_SOON = "observe-starts-soon";
  static final String ONE_ACTIVITY_TERM = "one-activity-term";
  static final String TERM_APPLIES = "term-applies";
  /** How soon a term that started tasks is followed by one that sees them run. */
  private static final Duration OBSERVE_STARTS_AFTER = Duration.ofMillis(300);
  /** A deadline closer than this is waited for this long: health is judged in whole terms. */
  private static final Duration MIN_WAIT = Duration.ofMillis(200);
  /** Actions an agent did not take are tried again this soon, not a whole interval later. */
  private static final Duration RETRY_ACTIONS_AFTER = Duration.ofSeconds(1);

  private final ClusterActivities activities =
      Workflow.newActivityStub(ClusterActivities.class, ActivityDefaults.store(Duration.ofSeconds(30)));
  /**
   * The term heartbeats, so that when the host running it dies another host runs the term again within
   * seconds, not after the 30 s start-to-close timeout.
   */
  private final ClusterActivities terms =
      Workflow.newActivityStub(
          ClusterActivities.class,
          ActivityOptions.newBuilder(ActivityDefaults.heartbeating(Duration.ofSeconds(30)))
              .setSummary("term: observe agents, judge health, place, reconcile, apply")
              .build());

  private TermSummary lastTerm;
  private Integer observeStartsVersion;
  private boolean wakeRequested;

  @Override
  public void run(ClusterState state) {
    long termsDone = state.termsDone();
    lastTerm = state.lastTerm();
    wakeRequested = wakeRequested || state.wakePending();
    // Version 1 plans and commits each term and applies its actions; runs recorded before it only
    // observed and recorded, and must replay as they ran.
    int version = Workflow.getVersion(PLAN_COMMIT_APPLY, Workflow.DEFAULT_VERSION, 1);
    boolean oneActivityTerms = version >= 1 && Workflow.getVersion(ONE_ACTIVITY_TERM, Workflow.DEFAULT_VERSION, 1) >= 1;
    // Version 1 of term-applies: the term activity also applies and records; runs before it applied
    // in a second activity.
    boolean termApplies = oneActivityTerms && Workflow.getVersion(TERM_APPLIES, Workflow.DEFAULT_VERSION, 1) >= 1;
    while (true) {
      if (oneActivityTerms) {
        termsDone = oneActivityTerm(termsDone + 1, termApplies);
        continue;
      }
      boolean woken = wakeRequested;
      wakeRequested = false;
      long term = termsDone + 1;
      long startedAt = Workflow.currentTimeMillis();
      TermObservation seen = activities.observe();
      Duration wait = Duration.ofMillis(seen.intervalMillis());
      TermSummary summary;
      if (version == Workflow.DEFAULT_VERSION) {
        summary = new TermSummary(term, startedAt, Workflow.currentTimeMillis() - startedAt, woken, null, null);
        Workflow.setCurrentDetails(details(summary, seen.intervalMillis()));
      } else {
        TermDecisions decided = activities.commitTerm(seen.observedAtMillis());
        ApplyResult applied = decided.actions() > 0 ? activities.applyActions() : ApplyResult.NOTHING;
        summary = new TermSummary(term, startedAt, Workflow.currentTimeMillis() - startedAt, woken, decided, applied);
        wait = untilNextTerm(wait, decided, applied, observeStartsSoon());
        Workflow.setCurrentDetails(details(summary, seen, wait));
      }
      activities.recordTerm(summary);
      lastTerm = summary;
      termsDone = term;

      if (shouldContinueAsNew()) {
        // Handlers must finish first, or their work would be lost with this run.
        Workflow.await(Workflow::isEveryHandlerFinished);
        log.debug("continuing as new after term {}", term);
        Workflow.continueAsNew(new ClusterState(termsDone, lastTerm, wakeRequested));
      }
      Timers.sleepUnless(wait, "until next term", () -> wakeRequested);
    }
  }

  /** Consecutive terms in which nothing changed; the wait grows with them, up to the idle interval. */
  private int quietTerms;

  /**
   * One term as one activity (before term-applies, plus apply and record when there is work); returns
   * the term's number.
   */
  private long oneActivityTerm(long term, boolean termApplies) {
    boolean woken = wakeRequested;
    wakeRequested = false;
    long startedAt = Workflow.currentTimeMillis();
    TermOutcome outcome = termApplies ? terms.termAndApply(term, startedAt, woken) : activities.term(term, startedAt, woken);
    TermDecisions decided = outcome.decisions();
    ApplyResult applied;
    if (termApplies) {
      applied = outcome.applied();
    } else {
      applied = decided.actions() > 0 ? activities.applyActions() : ApplyResult.NOTHING;
    }
    TermSummary summary = new TermSummary(term, startedAt, Workflow.currentTimeMillis() - startedAt, woken, decided, applied);
    if (!termApplies && applied != ApplyResult.NOTHING) {
      activities.recordTerm(summary);
    }
    lastTerm = summary;
    quietTerms = outcome.quiet() && !woken ? quietTerms + 1 : 0;
    Duration interval = Duration.ofMillis(outcome.observation().intervalMillis());
    Duration stretched = interval;
    long idle = outcome.observation().idleIntervalMillis();
    for (int i = 0; i < quietTerms && idle > 0 && stretched.toMillis() < idle; i++) {
      stretched = min(stretched.multipliedBy(2), Duration.ofMillis(idle));
    }
    Duration wait = untilNextTerm(stretched, decided, applied, true);
    Workflow.setCurrentDetails(details(summary, outcome.observation(), wait));
    if (shouldContinueAsNew()) {
      Workflow.await(Workflow::isEveryHandlerFinished);
      Workflow.continueAsNew(new ClusterState(term, lastTerm, wakeRequested));
    }
    Timers.sleepUnless(wait, quietTerms > 0 ? "quiet: until next term" : "until next term", () -> wakeRequested);
    return term;
  }

  /**
   * The interval, or less: until the nearest health deadline (a worker turning lost or offline is
   * acted on when it happens, not up to an interval later), or soon when actions are left over.
   */
  private static Duration untilNextTerm(
      Duration interval, TermDecisions decided, ApplyResult applied, boolean observeStarts) {
    Duration wait = interval;
    if (observeStarts && applied.started() > 0) {
      // Tasks were just started: see them running (or failing) soon, not an interval later.
      wait = min(wait, OBSERVE_STARTS_AFTER);
    }
    if (decided.nextDeadlineMillis() > 0) {
      Duration toDeadline = Duration.ofMillis(decided.nextDeadlineMillis() - Workflow.currentTimeMillis());
      wait = min(wait, max(toDeadline, MIN_WAIT));
    }
    if (applied.remaining() > 0) {
      wait = min(wait, RETRY_ACTIONS_AFTER);
    }
    return wait;
  }

  /** Version 2 of the term: a term that started tasks is followed by one within a second. */
  private boolean observeStartsSoon() {
    if (observeStartsVersion == null) {
      observeStartsVersion = Workflow.getVersion(OBSERVE_STARTS_SOON, Workflow.DEFAULT_VERSION, 1);
    }
    return observeStartsVersion >= 1;
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

  private static boolean shouldContinueAsNew() {
    var info = Workflow.getInfo();
    return info.isContinueAsNewSuggested() || info.getHistoryLength() > HISTORY_EVENTS_PER_RUN;
  }

  private static String details(TermSummary s, TermObservation seen, Duration wait) {
    TermDecisions d = s.decisions();
    return "term " + s.term() + (s.woken() ? " (woken early)" : "") + ": " + seen.answered() + "/" + seen.probed()
        + " agents answered; placed " + d.placed() + ", " + d.pending() + " pending, " + d.failures() + " failed, "
        + d.removals() + " orphans removed, " + d.healthChanges() + " health changes; next term within "
        + wait.toMillis() + " ms or on wake-up"
        + (d.examples() == null || d.examples().isEmpty() ? "" : "\n\n- " + String.join("\n- ", d.examples()));
  }

  private static String details(TermSummary s, long intervalMillis) {
    return "term " + s.term() + " done" + (s.woken() ? " (woken early)" : "") + "; next within "
        + Duration.ofMillis(intervalMillis).toMillis() + " ms or on wake-up";
  }
}
