package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * One task as its agent last reported it; {@code id} is {@code worker/taskId}; {@code observedAt}
 * is when it was first reported in this state.
 */
@MappedEntity("agent_tasks")
public record AgentTaskRow(
    @Id String id,
    String worker,
    String taskId,
    String state,
    @Nullable Integer exitCode,
    @Nullable String message,
    Instant observedAt) {

  public static AgentTaskRow of(
      String worker,
      String taskId,
      String state,
      @Nullable Integer exitCode,
      @Nullable String message,
      Instant observedAt) {
    return new AgentTaskRow(
        worker + "/" + taskId, worker, taskId, state, exitCode, message, observedAt);
  }

  /** Whether {@code other} reports the same state of the same task. */
  public boolean sameReport(AgentTaskRow other) {
    return id.equals(other.id)
        && state.equals(other.state)
        && java.util.Objects.equals(exitCode, other.exitCode)
        && java.util.Objects.equals(message, other.message);
  }
}
