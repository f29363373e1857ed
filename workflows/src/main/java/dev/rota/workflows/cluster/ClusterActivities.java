package dev.rota.workflows.cluster;

import io.temporal.activity.ActivityInterface;

/** The I/O of one term. Implementations hold no decisions: they read, write and call. */
@ActivityInterface
public interface ClusterActivities {
  /** Reads the desired state the term plans from. */
  TermObservation observe();

  /** Records the finished term in the store's read model, where the API reads it. */
  void recordTerm(TermSummary summary);
}
