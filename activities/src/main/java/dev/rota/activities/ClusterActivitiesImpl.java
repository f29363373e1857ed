package dev.rota.activities;

import dev.rota.activities.term.ActionApplier;
import dev.rota.activities.term.TermCommitter;
import dev.rota.activities.term.TermObserver;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.workflows.cluster.ApplyResult;
import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermDecisions;
import dev.rota.workflows.cluster.TermObservation;
import dev.rota.workflows.cluster.TermOutcome;
import dev.rota.workflows.cluster.TermSummary;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Singleton
public class ClusterActivitiesImpl implements ClusterActivities {
  private static final Logger log = LoggerFactory.getLogger(ClusterActivitiesImpl.class);
  private final TermObserver observer;
  private final TermCommitter committer;
  private final ActionApplier applier;
  private final ClusterStatusRepository status;
  private final java.time.Clock clock;
  private final Heartbeats heartbeats;

  public ClusterActivitiesImpl(
      TermObserver observer, TermCommitter committer, ActionApplier applier, ClusterStatusRepository status,
      java.time.Clock clock, Heartbeats heartbeats) {
    this.heartbeats = heartbeats;
    this.observer = observer;
    this.committer = committer;
    this.applier = applier;
    this.status = status;
    this.clock = clock;
  }

  @Override
  public TermObservation observe() {
    return observer.observe();
  }

  @Override
  public TermDecisions commitTerm(long observedAtMillis) {
    return committer.commit(observedAtMillis);
  }

  @Override
  public TermOutcome term(long term, long startedAtMillis, boolean woken) {
    TermOutcome outcome = observeAndCommit(term);
    recordTerm(term, startedAtMillis, woken, outcome.decisions(), ApplyResult.NOTHING);
    return outcome;
  }

  @Override
  @SuppressWarnings("try") // the beats need the resource, not the body
  public TermOutcome termAndApply(long term, long startedAtMillis, boolean woken) {
    try (Heartbeats.Beating alive = heartbeats.whileRunning()) {
      TermOutcome outcome = observeAndCommit(term);
      ApplyResult applied = outcome.decisions().actions() > 0 ? applyActions() : ApplyResult.NOTHING;
      recordTerm(term, startedAtMillis, woken, outcome.decisions(), applied);
      return new TermOutcome(outcome.observation(), outcome.decisions(), applied);
    }
  }

  private void recordTerm(long term, long startedAtMillis, boolean woken, TermDecisions decided, ApplyResult applied) {
    recordTerm(new TermSummary(term, startedAtMillis, Math.max(0, clock.millis() - startedAtMillis), woken, decided, applied));
  }

  private TermOutcome observeAndCommit(long term) {
    long began = clock.millis();
    TermObservation seen = observer.observe();
    long observed = clock.millis();
    TermDecisions decided = committer.commit(seen.observedAtMillis());
    if (log.isDebugEnabled()) {
      log.debug("term {}: observed {}/{} agents in {} ms, planned and committed in {} ms: {} placed, {} pending, {} actions",
          term, seen.answered(), seen.probed(), observed - began, clock.millis() - observed, decided.placed(),
          decided.pending(), decided.actions());
    }
    return new TermOutcome(seen, decided);
  }

  @Override
  public ApplyResult applyActions() {
    long began = clock.millis();
    ApplyResult applied = applier.apply();
    log.debug("applied in {} ms: {}", clock.millis() - began, applied);
    return applied;
  }

  @Override
  @Transactional
  public void recordTerm(TermSummary summary) {
    // Last writer wins: the embedded server forgets its workflows on restart while the database
    // keeps this row, so a new run must be able to start again from term 1.
    ClusterStatusRow row =
        new ClusterStatusRow(
            ClusterWorkflow.WORKFLOW_ID,
            summary.term(),
            Instant.ofEpochMilli(summary.startedAtMillis()),
            summary.durationMillis());
    if (status.existsById(row.id())) {
      status.update(row);
    } else {
      status.save(row);
    }
  }
}
