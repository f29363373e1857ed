package dev.rota.workflows;

/** Names of the Temporal task queues Rota's hosts poll. */
public final class TaskQueues {
  /**
   * The VM and VM-set workflows and their activities (and cluster runs started before the scheduler
   * had its own).
   */
  public static final String CONTROL = "rota-control";

  /**
   * The cluster workflow and its term activity alone. Behind thousands of VM workflow tasks on the
   * control queue, the scheduler's task waited its turn, timed out and was replayed from the start
   * of its run; on its own queue, polled by its own worker with its own cache, it is taken at once
   * and stays cached.
   */
  public static final String SCHEDULER = "rota-scheduler";

  private TaskQueues() {}
}
