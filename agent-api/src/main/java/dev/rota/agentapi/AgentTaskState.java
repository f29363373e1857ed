package dev.rota.agentapi;

import java.util.Arrays;
import java.util.Optional;

/**
 * A task's state on its agent, as the agent API spells it (the scheduler's record of a task has its
 * own, {@code dev.rota.core.model.TaskState}).
 */
public enum AgentTaskState {
  STARTING("starting"),
  RUNNING("running"),
  /** Ended by itself, with an exit code. */
  EXITED("exited"),
  /** Could not be run, or was killed for good. */
  FAILED("failed");

  private final String wireName;

  AgentTaskState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public boolean ended() {
    return this == EXITED || this == FAILED;
  }

  public static Optional<AgentTaskState> parse(String wireName) {
    return Arrays.stream(values()).filter(s -> s.wireName.equals(wireName)).findFirst();
  }
}
