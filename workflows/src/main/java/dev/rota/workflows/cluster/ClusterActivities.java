package dev.rota.workflows.cluster;

import io.temporal.activity.ActivityInterface;

/** The I/O of one term. Implementations hold no decisions: they read, write and call. */
@ActivityInterface
public interface ClusterActivities {
  /** Probes the agents that are due, in parallel with a deadline each, and records what they said. */
  TermObservation observe();

  /**
   * Plans the term with the pure scheduling core on the store's snapshot and commits the decisions in
   * one transaction with optimistic checks, queueing the actions they need.
   */
  TermDecisions commitTerm(long observedAtMillis);

  /**
   * A whole term but its actions, in one activity: observe, plan and commit, and record the term as
   * done so far. Two actions per quiet term (this and the timer), where separate steps cost four.
   */
  TermOutcome term(long term, long startedAtMillis, boolean woken);

  /**
   * A whole term in one activity: observe, plan and commit, apply the queued actions (when there are
   * any), and record the term. One workflow round trip per term, where a term and a separate apply
   * cost three; under load those round trips were a third of a term's time.
   */
  TermOutcome termAndApply(long term, long startedAtMillis, boolean woken);

  /** Carries out queued actions: starts and removes tasks on agents, notifies VM workflows. */
  ApplyResult applyActions();

  /** Records the finished term in the store's read model, where the API reads it. */
  void recordTerm(TermSummary summary);
}
