package dev.rota.agentapi;

/**
 * One task as an agent's {@code GET /v1/tasks} lists it, and as it reports changes to the
 * controller.
 *
 * @param state a {@link AgentTaskState}'s wire name
 * @param exitCode once it exited, else null
 * @param startedAt ISO-8601, or null
 * @param finishedAt ISO-8601, or null
 * @param message why it failed, or null
 * @param ports the worker's port for each of its ports, by name; null when it has none
 * @param submission its VM's submission number, as its spec named it; null when it did not
 * @param ready whether its readiness check passes; null when it has none
 * @param readySince ISO-8601, since when it has been ready; null while it is not
 * @param readiness what its readiness check last said when it failed, or null
 */
public record TaskView(
    String id,
    String vm,
    String state,
    Integer exitCode,
    String startedAt,
    String finishedAt,
    String message,
    java.util.Map<String, Integer> ports,
    Long submission,
    Boolean ready,
    String readySince,
    String readiness) {
  public TaskView(
      String id,
      String vm,
      String state,
      Integer exitCode,
      String startedAt,
      String finishedAt,
      String message) {
    this(id, vm, state, exitCode, startedAt, finishedAt, message, null, null, null, null, null);
  }
}
