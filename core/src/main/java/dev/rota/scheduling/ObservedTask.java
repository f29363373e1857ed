package dev.rota.scheduling;

import dev.rota.agentapi.AgentTaskState;

/**
 * A task as its agent reported it.
 *
 * @param state an {@link AgentTaskState}'s wire name
 */
public record ObservedTask(String id, String state, Integer exitCode, String message) {
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
