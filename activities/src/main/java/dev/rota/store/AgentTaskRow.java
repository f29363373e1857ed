package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** One task as its agent last reported it; {@code id} is {@code worker/taskId}. */
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
      String worker, String taskId, String state, @Nullable Integer exitCode, @Nullable String message, Instant observedAt) {
    return new AgentTaskRow(worker + "/" + taskId, worker, taskId, state, exitCode, message, observedAt);
  }
}
