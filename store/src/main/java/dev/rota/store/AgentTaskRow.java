package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * One task as its agent last reported it; {@code id} is {@code worker/taskId}; {@code observedAt}
 * is when it was first reported in this state; {@code ports} the worker's port for each of its
 * named ports.
 */
@MappedEntity("agent_tasks")
public record AgentTaskRow(
    @Id String id,
    String worker,
    String taskId,
    String state,
    @Nullable Integer exitCode,
    @Nullable String message,
    Instant observedAt,
    @io.micronaut.data.annotation.TypeDef(
            type = io.micronaut.data.model.DataType.STRING,
            converter = Converters.PortNumbers.class)
        @Nullable
        java.util.Map<String, Integer> ports,
    @Nullable Long submission) {

  public AgentTaskRow {
    ports = ports == null ? java.util.Map.of() : ports;
  }

  public static AgentTaskRow of(
      String worker,
      String taskId,
      String state,
      @Nullable Integer exitCode,
      @Nullable String message,
      Instant observedAt) {
    return of(worker, taskId, state, exitCode, message, observedAt, null, null);
  }

  public static AgentTaskRow of(
      String worker,
      String taskId,
      String state,
      @Nullable Integer exitCode,
      @Nullable String message,
      Instant observedAt,
      @Nullable java.util.Map<String, Integer> ports,
      @Nullable Long submission) {
    return new AgentTaskRow(
        worker + "/" + taskId,
        worker,
        taskId,
        state,
        exitCode,
        message,
        observedAt,
        ports,
        submission);
  }

  /** Whether {@code other} reports the same state of the same task. */
  public boolean sameReport(AgentTaskRow other) {
    return id.equals(other.id)
        && state.equals(other.state)
        && java.util.Objects.equals(exitCode, other.exitCode)
        && java.util.Objects.equals(message, other.message)
        && ports.equals(other.ports)
        && java.util.Objects.equals(submission, other.submission);
  }
}
