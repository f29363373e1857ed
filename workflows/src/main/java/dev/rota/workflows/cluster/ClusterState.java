package dev.rota.workflows.cluster;

/**
 * What the cluster workflow carries across continue-as-new: kept small on purpose, because
 * everything else is observed again at the next term.
 *
 * @param termsDone how many terms all runs of this workflow have finished
 * @param lastTerm the last finished term, or null before the first
 * @param wakePending a wake-up that arrived before the previous run continued as new
 */
public record ClusterState(long termsDone, TermSummary lastTerm, boolean wakePending) {
  public static ClusterState initial() {
    return new ClusterState(0, null, false);
  }
}
