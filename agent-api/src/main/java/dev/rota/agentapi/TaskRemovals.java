package dev.rota.agentapi;

import java.util.List;

/**
 * {@code POST /v1/removals}: deleted VMs' leftovers on one worker removed in one call. Each task is
 * removed as {@code DELETE /v1/tasks/{id}?submission=N&logs=discard} would remove it, and the logs
 * kept of each VM's earlier tasks are dropped as {@code DELETE /v1/logs/{vm}} would drop them. A
 * set's deletion sends its replicas' removals on one worker so, rather than two calls a replica.
 *
 * @param tasks the tasks to remove, each only if it is of its {@code submission} (null: whichever
 *     it is)
 * @param vms the deleted VMs whose kept logs go
 */
public record TaskRemovals(List<Task> tasks, List<String> vms) {
  /** The most tasks, and the most VMs, one call names: a body stays well under an agent's limit. */
  public static final int MOST = 100;

  public record Task(String id, Long submission) {}

  public TaskRemovals {
    tasks = tasks == null ? List.of() : List.copyOf(tasks);
    vms = vms == null ? List.of() : List.copyOf(vms);
  }
}
