package dev.rota.agentapi;

import java.util.List;

/**
 * {@code POST /v1/tasks}: several tasks started in one call, each as {@code PUT /v1/tasks/{id}}
 * would start it. The scheduler sends a term's starts on one worker so, rather than a call a task.
 */
public record TaskStarts(List<Item> items) {
  /** The most tasks one call starts: a batch's body stays well under an agent's limit. */
  public static final int MOST = 100;

  /**
   * A start's deadline, in epoch milliseconds on the controller's clock: when the controller gives
   * up waiting for the answer and counts the start as not made. An agent refuses a start that
   * reaches it later (408), by its estimate of the controller's clock ({@link
   * HeartbeatHeaders#CONTROLLER_TIME}): a start held up on the way (a worker cut off with the
   * request sent, its link healed after the VM was placed elsewhere) would otherwise run the VM
   * twice.
   */
  public static final String START_BEFORE = "Rota-Start-Before";

  /** The status of a start refused for coming after {@link #START_BEFORE}. */
  public static final int TOO_LATE = 408;

  public record Item(String id, TaskSpec spec) {}

  /**
   * What came of each start, in the order asked.
   *
   * @param items one for each task asked, in order
   */
  public record Answer(List<Outcome> items) {}

  /**
   * What came of one start: {@code status} as the task's own {@code PUT} would have answered (201
   * started, 200 already there, 4xx refused), {@code detail} why it was refused.
   */
  public record Outcome(String id, int status, String detail) {
    public boolean started() {
      return status == 200 || status == 201;
    }
  }
}
