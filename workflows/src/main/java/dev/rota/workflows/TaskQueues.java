package dev.rota.workflows;

import java.util.List;

/**
 * Names of the Temporal task queues Rota's hosts poll. Each names the release line ({@link #LINE})
 * whose workflow code its histories replay on.
 */
public final class TaskQueues {
  /**
   * The release line: from the first release on, a change to a workflow keeps its histories
   * replaying (a {@code Workflow.getVersion} marker and a stored history), and the line stays.
   */
  public static final String LINE = "1";

  /** The VM, VM-set and scheduled-run workflows and their activities. */
  public static final String CONTROL = "rota-" + LINE + "-control";

  /**
   * The cluster workflow and its term activity alone. Behind thousands of VM workflow tasks on the
   * control queue, the scheduler's task waited its turn, timed out and was replayed from the start
   * of its run; on its own queue, polled by its own worker with its own cache, it is taken at once
   * and stays cached.
   */
  public static final String SCHEDULER = "rota-" + LINE + "-scheduler";

  /**
   * The queues of the builds before the first release, whose workflows this code does not replay:
   * no host polls them, and a host at start ends what waits there and starts it again from the
   * database.
   */
  public static final List<String> BEFORE_THE_LINE = List.of("rota-control", "rota-scheduler");

  private TaskQueues() {}
}
