package dev.rota.workflows.cluster;

import io.temporal.activity.ActivityInterface;

/** The I/O of one term. Implementations hold no decisions: they read, write and call. */
@ActivityInterface
public interface ClusterActivities {
  /**
   * A whole term in one activity: probe the agents that are due (in parallel, a deadline each),
   * plan with the pure scheduling core on the store's snapshot and commit the decisions in one
   * transaction with optimistic checks, carry out the queued actions (when there are any), and
   * record the term. One workflow round trip per term; it heartbeats while it runs.
   */
  TermOutcome termAndApply(TermStart start);
}
