package dev.rota.workflows.cluster;

import dev.rota.workflows.ActivityDefaults;
import dev.rota.workflows.Timers;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The term loop. Each term is one activity: observe the agents, plan and commit (health, placement,
 * reconciliation by the pure scheduling core on the store's snapshot, so that no snapshot of the
 * cluster passes through this history), apply the queued actions, record the term. The history
 * grows by the same few events per term whatever the cluster's size, and by none for a term that
 * changes nothing: that term asks for the activity's next attempt, which is the next term. After a
 * term that changed something it waits on a timer that says what the term did. Either wait lasts
 * the interval (longer while nothing changes, up to the idle interval), or until the nearest health
 * deadline, or until a wake-up signal, whichever comes first.
 */
public class ClusterWorkflowImpl implements ClusterWorkflow {
  /**
   * Continue-as-new once a run's history passes this many events even if the server has not
   * suggested it yet: the embedded test server never suggests it, and a short history keeps replay
   * cheap.
   */
  static final int HISTORY_EVENTS_PER_RUN = 2_000;

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

  /**
   * Whether no timer told what the last term did: a wake-up was waiting when it ended, so the next
   * term came at once, and its activity's line tells it instead ({@link TermLines#starting}).
   */
  private boolean lastUntold;

  /** The change that tells a term no timer followed in the next term's line. */
  static final String UNTOLD_TERMS = "untold-terms";

  /**
   * Whether the last term's host said a quiet term may rest ({@link TermOutcome#quietTermsRest}:
   * its Temporal lets it); false until a term has said it. Only a resting term is cancelled.
   */
  private boolean hostsLetRest;

  /** Whether the next term's number is the one after the last told. */
  private boolean numberKnown = true;

  private boolean wakeRequested;

  /**
   * Consecutive terms in which nothing changed; the wait grows with them, up to the idle interval.
   */
  private int quietTerms;

  /**
   * Consecutive terms that lost races: each re-planned at once, up to a bound ({@link TermPace}).
   */
  private int racesLostInARow;

  @Override
  public void run(ClusterState state) {
    long term = state.termsDone();
    lastTerm = state.lastTerm();
    wakeRequested = wakeRequested || state.wakePending();
    while (true) {
      term++;
      Duration wait = termsUntilOneActs(term);
      term = Math.max(term, lastTerm == null ? 0 : lastTerm.term());
      if (shouldContinueAsNew()) {
        // Handlers must finish first, or their work would be lost with this run.
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(new ClusterState(term, lastTerm, wakeRequested));
      }
      if (wait != null) {
        lastUntold =
            wakeRequested && Workflow.getVersion(UNTOLD_TERMS, Workflow.DEFAULT_VERSION, 1) == 1;
        Timers.sleepUnless(wait, TermLines.done(lastTerm, wait), () -> wakeRequested);
      }
    }
  }

  /**
   * Terms until one changes something, in one activity: a quiet term asks Temporal for the
   * activity's next attempt after its wait ({@link QuietTerms}), so quiet terms leave no events
   * here. Returns the wait after the term that changed something, or null when a wake-up cut the
   * quiet terms short: the next term comes at once.
   */
  private Duration termsUntilOneActs(long term) {
    boolean woken = wakeRequested;
    wakeRequested = false;
    long startedAt = Workflow.currentTimeMillis();
    // The first term, and a term a wake-up brought (a user's action), are told whatever they did:
    // the UI shows what the scheduler made of the action.
    // Temporal's in-process test server (dev mode's embedded server) refuses for good a workflow
    // task whose cancel races the activity's completion: on it, terms never rest and are never
    // cancelled, as before quiet terms rested.
    boolean mayRest = lastTerm != null && !woken && hostsLetRest;
    ClusterActivities terms =
        Workflow.newActivityStub(
            ClusterActivities.class,
            ActivityOptions.newBuilder(ActivityDefaults.heartbeating(retryCap))
                .setSummary(TermLines.starting(numberKnown ? term : 0, woken, lastTerm, lastUntold))
                // A wake-up ends the wait for the next attempt; one running finishes first, so
                // that two terms never run at once.
                .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
                .build());
    List<Promise<TermOutcome>> running = new ArrayList<>(1);
    CancellationScope scope =
        Workflow.newCancellationScope(
            () ->
                running.add(
                    Async.function(
                        terms::termAndApply,
                        new TermStart(term, startedAt, woken, quietTerms, mayRest))));
    scope.run();
    Promise<TermOutcome> outcome = running.get(0);
    Workflow.await(() -> outcome.isCompleted() || (mayRest && wakeRequested));
    if (!outcome.isCompleted()) {
      scope.cancel();
    }
    try {
      TermOutcome done = outcome.get();
      numberKnown = true;
      hostsLetRest = done.quietTermsRest();
      return settle(done, told(term, startedAt, woken, done));
    } catch (ActivityFailure | CanceledFailure cut) {
      if (!scope.isCancelRequested()) {
        throw cut;
      }
      // Quiet terms may have run as attempts: the next term's number is the activity's to tell.
      numberKnown = false;
      return null;
    }
  }

  /**
   * The term as the API and the UI tell it: as the activity recorded it, or else from the
   * workflow's clock. The term began when its activity began to observe, which is later than it was
   * asked for when the activity waited (for a host's pollers, or for Temporal itself to come back):
   * the API tells the former.
   */
  private static TermSummary told(long term, long startedAt, boolean woken, TermOutcome outcome) {
    if (outcome.recorded() != null) {
      return outcome.recorded();
    }
    long began = Math.max(startedAt, outcome.observation().observedAtMillis());
    return new TermSummary(
        term,
        began,
        Math.max(0, Workflow.currentTimeMillis() - began),
        woken,
        outcome.decisions(),
        outcome.applied());
  }

  /** Takes in a finished term; returns how long to wait for the next. */
  private Duration settle(TermOutcome outcome, TermSummary summary) {
    lastTerm = summary;
    quietTerms = outcome.quiet() && !summary.woken() ? quietTerms + 1 : 0;
    racesLostInARow = outcome.decisions().lostRaces() > 0 ? racesLostInARow + 1 : 0;
    Duration interval = Duration.ofMillis(outcome.observation().intervalMillis());
    // Not under the first try's 1 s: a retry policy's cap may not be below its initial interval.
    retryCap = TermPace.max(interval, Duration.ofSeconds(1));
    Duration wait =
        TermPace.after(
            outcome.observation(),
            quietTerms,
            racesLostInARow,
            outcome.decisions(),
            outcome.applied(),
            Workflow.currentTimeMillis());
    Workflow.setCurrentDetails(
        details(lastTerm, outcome.observation(), wait)
            + "\n\nTerms that change nothing run as the next attempts of the pending term"
            + " activity: its attempt count and last failure (QuietTerm) tell the latest.");
    return wait;
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
