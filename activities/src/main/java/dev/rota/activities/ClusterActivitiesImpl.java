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

  public ClusterActivitiesImpl(
      TermObserver observer, TermCommitter committer, ActionApplier applier, ClusterStatusRepository status) {
    this.observer = observer;
    this.committer = committer;
    this.applier = applier;
    this.status = status;
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
