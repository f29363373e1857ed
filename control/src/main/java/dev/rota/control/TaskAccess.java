package dev.rota.control;

import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.LogChunk;
import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.TaskTunnel;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.store.WorkerRow;
import jakarta.inject.Singleton;
import java.io.IOException;

/**
 * What a user reaches of a VM's task through the controller: its log and a way into it, each from
 * the agent of the worker that has it, within the agents' deadline ({@code rota.agents.timeout}).
 */
@Singleton
public class TaskAccess {
  private final AgentClient agents;
  private final AgentCallSettings calls;

  public TaskAccess(AgentClient agents, AgentCallSettings calls) {
    this.agents = agents;
    this.calls = calls;
  }

  /**
   * One read of the task's log on {@code worker}.
   *
   * @throws AgentRejectedException when the agent refuses (404: it has neither the task nor its
   *     log)
   */
  public LogChunk logs(WorkerRow worker, String taskId, LogQuery query) {
    return agents.logs(worker.agent(), taskId, query, calls.timeout());
  }

  /**
   * A way into the running task, both ways ({@link TaskTunnel}'s targets).
   *
   * @throws TaskTunnel.Refused when the agent refuses it
   * @throws IOException when the agent cannot be reached
   */
  public TaskTunnel connect(WorkerRow worker, String target) throws IOException {
    return agents.connect(worker.agent(), target, calls.timeout());
  }
}
