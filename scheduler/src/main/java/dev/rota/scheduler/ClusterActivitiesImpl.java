package dev.rota.scheduler;

import dev.rota.scheduler.metrics.SchedulerMetrics;
import dev.rota.scheduler.term.ActionApplier;
import dev.rota.scheduler.term.TermCommitter;
import dev.rota.scheduler.term.TermObserver;
import dev.rota.scheduler.term.TermRecorder;
import dev.rota.workflows.cluster.ApplyResult;
import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.cluster.QuietTerms;
import dev.rota.workflows.cluster.TermDecisions;
import dev.rota.workflows.cluster.TermObservation;
import dev.rota.workflows.cluster.TermOutcome;
import dev.rota.workflows.cluster.TermStart;
import dev.rota.workflows.cluster.TermSummary;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Singleton
public class ClusterActivitiesImpl implements ClusterActivities {
  private static final Logger log = LoggerFactory.getLogger(ClusterActivitiesImpl.class);
  private final TermObserver observer;
  private final TermCommitter committer;
  private final ActionApplier applier;
  private final TermRecorder recorder;
  private final java.time.Clock clock;
  private final Heartbeats heartbeats;
  private final SchedulerMetrics metrics;
  private final dev.rota.scheduler.temporal.QuietTermsRest quietTermsRest;
  private final WokenTermGap gap;

  public ClusterActivitiesImpl(
      TermObserver observer,
      TermCommitter committer,
      ActionApplier applier,
      TermRecorder recorder,
      java.time.Clock clock,
      Heartbeats heartbeats,
      SchedulerMetrics metrics,
      dev.rota.scheduler.temporal.QuietTermsRest quietTermsRest,
      WokenTermGap gap) {
    this.gap = gap;
    this.quietTermsRest = quietTermsRest;
    this.metrics = metrics;
    this.heartbeats = heartbeats;
    this.observer = observer;
    this.committer = committer;
    this.applier = applier;
    this.recorder = recorder;
    this.clock = clock;
  }

  @Override
  @SuppressWarnings("try") // the beats need the resource, not the body
  public TermOutcome termAndApply(TermStart asked) {
    if (asked.woken()) {
      gap.beforeWokenTerm();
    }
    // A term woken from a pause longer than the heartbeat timeout may have been given to another
    // host meanwhile, and what it read is stale: it stops before each of its writes
    // (Heartbeats.Stale). The record says when this attempt began: an attempt retried after
    // Temporal lost the one before (its result could not be reported) began when it ran, not when
    // the workflow first asked for the term.
    long began = clock.millis();
    TermStart start = QuietTerms.attempt(asked, attempt(), began);
    try (Heartbeats.Beating alive = heartbeats.whileRunning()) {
      // Quiet terms ran as attempts the workflow never saw: the number follows the last recorded.
      long term = Math.max(start.term(), recorder.lastTerm() + 1);
      TermOutcome outcome = observeAndCommit(term, alive, start.woken());
      alive.stillOurs("carrying out the term's actions");
      ApplyResult applied = outcome.decisions().actions() > 0 ? apply() : ApplyResult.NOTHING;
      if (start.woken()) {
        outcome =
            new TermOutcome(
                outcome.observation().and(observer.checkReady(alive)), outcome.decisions());
      }
      alive.stillOurs("recording the term");
      TermSummary recorded =
          recordTerm(
              new TermStart(term, Math.max(began, start.startedAtMillis()), start.woken()),
              outcome.decisions(),
              applied);
      boolean mayRest = quietTermsRest.allowed();
      TermOutcome done =
          new TermOutcome(outcome.observation(), outcome.decisions(), applied, recorded, mayRest);
      Optional<ApplicationFailure> rest =
          mayRest ? QuietTerms.rest(start, done, clock.millis()) : Optional.empty();
      if (rest.isPresent()) {
        // A wake-up that came while this term ran cancels it: heard here, it ends the attempt
        // instead of the rest.
        alive.stillWanted();
        throw rest.get();
      }
      return done;
    } finally {
      gap.termEnded();
    }
  }

  /** Which attempt of the term activity this is: 1 outside an activity. */
  private static int attempt() {
    try {
      return Activity.getExecutionContext().getInfo().getAttempt();
    } catch (IllegalStateException notInAnActivity) {
      return 1;
    }
  }

  private TermSummary recordTerm(TermStart start, TermDecisions decided, ApplyResult applied) {
    long took = Math.max(0, clock.millis() - start.startedAtMillis());
    TermSummary summary =
        new TermSummary(
            start.term(), start.startedAtMillis(), took, start.woken(), decided, applied);
    recorder.record(summary);
    metrics.term(java.time.Duration.ofMillis(took));
    return summary;
  }

  private TermOutcome observeAndCommit(long term, Heartbeats.Beating alive, boolean woken) {
    long began = clock.millis();
    TermObservation seen = observer.observe(alive, woken);
    long observed = clock.millis();
    alive.stillCurrent("committing the term's decisions");
    TermDecisions decided = committer.commit(seen.observedAtMillis());
    metrics.committed(decided);
    if (log.isDebugEnabled()) {
      log.debug(
          "term {}: observed {}/{} agents in {} ms, planned and committed in {} ms: {} placed, {} pending, {} actions",
          term,
          seen.answered(),
          seen.probed(),
          observed - began,
          clock.millis() - observed,
          decided.placed(),
          decided.pending(),
          decided.actions());
    }
    return new TermOutcome(seen, decided);
  }

  private ApplyResult apply() {
    long began = clock.millis();
    ApplyResult applied = applier.apply();
    log.debug("applied in {} ms: {}", clock.millis() - began, applied);
    return applied;
  }
}
