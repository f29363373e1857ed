package dev.rota.core.scheduling;

import dev.rota.agentapi.AgentTaskState;

/**
 * A task as its agent reported it.
 *
 * @param state an {@link AgentTaskState}'s wire name
 * @param submission the submission of the VM the task is of, as its agent says; null when it does
 *     not say
 * @param readiness what its readiness check says, as its agent reports it; null when it says
 *     nothing
 */
public record ObservedTask(
    String id,
    String state,
    Integer exitCode,
    String message,
    Long submission,
    Readiness readiness) {
  public ObservedTask(String id, String state, Integer exitCode, String message, Long submission) {
    this(id, state, exitCode, message, submission, null);
  }

  public ObservedTask(String id, String state, Integer exitCode, String message) {
    this(id, state, exitCode, message, null);
  }

  /**
   * Ready since {@code since}, or not, saying {@code why}.
   *
   * @param since null while not ready
   * @param why what the check said when it failed; null when it passes or has not run
   */
  public record Readiness(java.time.Instant since, String why) {
    public boolean ready() {
      return since != null;
    }
  }

  /** Whether it may be the task of submission {@code seq}: unless its agent names another. */
  public boolean ofSubmission(long seq) {
    return dev.rota.agentapi.TaskId.sameSubmission(submission, seq);
  }

  public boolean ended() {
    return AgentTaskState.parse(state).map(AgentTaskState::ended).orElse(false);
  }

  public boolean running() {
    return AgentTaskState.RUNNING.wireName().equals(state);
  }

  public boolean exited() {
    return AgentTaskState.EXITED.wireName().equals(state);
  }
}
