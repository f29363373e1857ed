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

@Singleton
public class ClusterActivitiesImpl implements ClusterActivities {
  private final TermObserver observer;
  private final TermCommitter committer;
  private final ActionApplier applier;
  private final ClusterStatusRepository status;
  private final java.time.Clock clock;

  public ClusterActivitiesImpl(
      TermObserver observer, TermCommitter committer, ActionApplier applier, ClusterStatusRepository status,
      java.time.Clock clock) {
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
    TermObservation seen = observer.observe();
    TermDecisions decided = committer.commit(seen.observedAtMillis());
    recordTerm(new TermSummary(term, startedAtMillis, Math.max(0, clock.millis() - startedAtMillis), woken, decided,
        ApplyResult.NOTHING));
    return new TermOutcome(seen, decided);
  }

  @Override
  public ApplyResult applyActions() {
    return applier.apply();
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
