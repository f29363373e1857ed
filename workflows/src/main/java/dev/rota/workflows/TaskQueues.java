package dev.rota.workflows;

/** Names of the Temporal task queues Rota's hosts poll. */
public final class TaskQueues {
  /** Workflows and activities of the control plane. */
  public static final String CONTROL = "rota-control";

  private TaskQueues() {}
}
