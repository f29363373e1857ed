package dev.rota.scheduler.agents;

import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.LogChunk;
import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskStarts;
import dev.rota.store.AgentAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

  /**
   * {@code POST /v1/tasks}: starts several tasks in one call ({@link TaskStarts#MOST} at most),
   * each as {@link #startTask} would; what came of each, in order, a refusal's {@code detail}
   * saying which call refused and why. An agent that takes no batch is asked task by task.
   *
   * @throws RuntimeException when the call failed as a whole (the agent did not answer): none, some
   *     or all of the tasks may have started, and asking again is safe
   */
  default List<TaskStarts.Outcome> startTasks(
      AgentAddress agent, List<TaskStarts.Item> starts, Duration timeout) {
    List<TaskStarts.Outcome> outcomes = new ArrayList<>(starts.size());
    for (TaskStarts.Item start : starts) {
      try {
        startTask(agent, start.id(), start.spec(), timeout);
        outcomes.add(new TaskStarts.Outcome(start.id(), 201, null));
      } catch (AgentRejectedException e) {
        outcomes.add(new TaskStarts.Outcome(start.id(), e.status(), e.getMessage()));
      }
    }
    return outcomes;
  }

  /**
   * {@code DELETE /v1/tasks/{id}}: ends and removes the task, only if it is of {@code submission}
   * (null: whichever it is); a task already gone is fine. Its logs are kept for a while, unless
   * {@code discardLogs} (its VM is gone).
   */
  void removeTask(
      AgentAddress agent, String taskId, Long submission, boolean discardLogs, Duration timeout);

  /**
   * {@code POST /v1/removals}: deleted VMs' tasks removed and their kept logs dropped in one call
   * ({@link dev.rota.agentapi.TaskRemovals#MOST} of each at most), as {@link #removeTask} with
   * {@code discardLogs} and then {@link #forgetLogs} would. An agent that takes no batch is asked
   * call by call.
   *
   * @throws RuntimeException when the call failed: some may have been removed, and asking again is
   *     safe
   */
  default void removeDeleted(
      AgentAddress agent, dev.rota.agentapi.TaskRemovals removals, Duration timeout) {
    for (dev.rota.agentapi.TaskRemovals.Task task : removals.tasks()) {
      removeTask(agent, task.id(), task.submission(), true, timeout);
    }
    for (String vm : removals.vms()) {
      forgetLogs(agent, vm, timeout);
    }
  }

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

  /**
   * {@code DELETE /v1/disks/{id}}: the VM whose persistent disk it is is deleted; the disk goes.
   * Refused (409) while a task still runs from it.
   */
  void deleteDisk(AgentAddress agent, String diskId, Duration timeout);

  /**
   * {@code POST /v1/tasks/{id}/suspend}: the running VM's memory saved on its worker and its task
   * ended; answered once both are done, with the memory's size in bytes.
   *
   * @throws AgentRejectedException on a 4xx (404: no such task; 409: it does not run, or its VM
   *     cannot be suspended)
   */
  long suspendTask(AgentAddress agent, String taskId, Duration timeout);

  /**
   * {@code POST /v1/tasks/{id}/pause} ({@code pause}) or {@code /continue}: the running VM's guest
   * paused where it runs, or run on.
   *
   * @throws AgentRejectedException on a 4xx (404: no such task; 409: it does not run, or cannot be
   *     paused)
   */
  void pauseTask(AgentAddress agent, String taskId, boolean pause, Duration timeout);

  /**
   * {@code POST /v1/tasks/{id}/user-data?submission=N}: {@code userData} written into the running
   * task's guest through its guest agent, and run there when it is a script; the same user data
   * given again is neither written nor run again.
   *
   * @throws AgentRejectedException on a 4xx (404: no such task of that submission; 409: it does not
   *     run, or its guest agent does not answer yet; 422: its guest cannot take user data)
   */
  void deliverUserData(
      AgentAddress agent, String taskId, long submission, byte[] userData, Duration timeout);

  /**
   * {@code POST /v1/disks/{id}/snapshot}: the persistent disk, at rest, saved as {@code image} (an
   * {@code oci://} reference), with the memory its suspended VM saved when {@code memory}, pushed
   * to its registry and kept in the worker's image cache; answered once it is pushed.
   *
   * @throws AgentRejectedException on a 4xx or 502 (404: no such disk there; 409: a task runs from
   *     it, or no memory is saved with it; 502: the registry refused it)
   */
  dev.rota.agentapi.DiskSnapshot snapshotDisk(
      AgentAddress agent, String diskId, String image, boolean memory, Duration timeout);

  /** {@code GET /v1/disks}: the persistent disks the worker holds; none from an older agent. */
  java.util.List<dev.rota.agentapi.HeldDisk> disks(AgentAddress agent, Duration timeout);
}
