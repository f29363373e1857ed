package dev.rota.agents;

import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.TaskSpec;
import dev.rota.store.AgentAddress;
import java.time.Duration;

/**
 * The controller's side of the agent API (docs/agent.md). Every call is idempotent by task id and
 * carries the agent's secret, without which the agent refuses it.
 */
public interface AgentClient {
  /** {@code GET /healthz}, then {@code GET /v1/tasks}, within {@code timeout} altogether. */
  Probe probe(AgentAddress agent, Duration timeout);

  /**
   * {@code PUT /v1/tasks/{id}}: starts the task, or finds it already there.
   *
   * @throws AgentRejectedException on a 4xx
   */
  void startTask(AgentAddress agent, String taskId, TaskSpec spec, Duration timeout);

  /** {@code DELETE /v1/tasks/{id}}: ends and removes the task; a task already gone is fine. */
  void removeTask(AgentAddress agent, String taskId, Duration timeout);

  /**
   * {@code GET /v1/tasks/{id}/logs}: what a task wrote, while it runs or after.
   *
   * @throws AgentRejectedException on a 4xx (404: neither the task nor its logs are on that agent)
   */
  LogChunk logs(AgentAddress agent, String taskId, LogQuery query, Duration timeout);

  /**
   * A way into a running task through its agent, both ways: {@code target} is one of {@link
   * dev.rota.agentapi.TaskTunnel}'s (a named port, the console, a command).
   *
   * @throws dev.rota.agentapi.TaskTunnel.Refused when the agent refuses it (400: a command it
   *     cannot run; 404: no such task or port; 409: the task does not run or offers no such way in;
   *     502: nothing accepts on the port)
   * @throws java.io.IOException when the agent cannot be reached
   */
  dev.rota.agentapi.TaskTunnel connect(AgentAddress agent, String target, Duration timeout)
      throws java.io.IOException;

  /** {@code DELETE /v1/logs/{vm}}: the VM is deleted; the logs kept of its tasks go. */
  void forgetLogs(AgentAddress agent, String vm, Duration timeout);

  /** Bytes of a task's log, the offset that follows them, and whether the task may write more. */
  record LogChunk(byte[] bytes, long next, boolean live) {}
}
