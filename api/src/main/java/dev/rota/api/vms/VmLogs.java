package dev.rota.api.vms;

import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.TaskId;
import dev.rota.agents.AgentClient;
import dev.rota.agents.AgentClient.LogChunk;
import dev.rota.agents.AgentRejectedException;
import dev.rota.api.problem.Problems;
import dev.rota.control.TaskWorkers;
import dev.rota.settings.AgentCallSettings;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;

/**
 * A VM's output, from the agent that runs or ran the task, as {@code kubectl logs} or {@code nomad
 * alloc logs} would: the logs stay on the worker, kept after the task ends until the VM is deleted,
 * and the API passes them through. A follower reads from the offset its last read ended at, so it
 * loses nothing the worker still keeps; a read that finds nothing new waits a little for more.
 */
@Singleton
public class VmLogs {
  /** How often a waiting read looks again. */
  static final Duration LOOK_AGAIN = Duration.ofMillis(250);

  /** The longest a read waits for more. */
  static final int MAX_WAIT_SECONDS = 60;

  /** What was read, of which task, on which worker. */
  public record Read(LogChunk chunk, String taskId, String worker) {}

  private final VmRepository vms;
  private final WorkerRepository workers;
  private final AgentClient agents;
  private final AgentCallSettings calls;
  private final TaskWorkers taskWorkers;

  public VmLogs(
      VmRepository vms,
      WorkerRepository workers,
      AgentClient agents,
      AgentCallSettings calls,
      TaskWorkers taskWorkers) {
    this.vms = vms;
    this.workers = workers;
    this.agents = agents;
    this.calls = calls;
    this.taskWorkers = taskWorkers;
  }

  /**
   * Reads the current task's log ({@code previous}: the generation before), waiting up to {@code
   * wait} when a read from an offset finds nothing new and the task may still write.
   */
  public Read read(String name, LogQuery query, boolean previous, Duration wait) {
    VmRow vm = vms.findById(name).orElseThrow(() -> Problems.notFound("vm", name));
    int generation = vm.state().restartCount() - (previous ? 1 : 0);
    if (generation < 0) {
      throw Problems.conflict(
          "vm '" + name + "' is in its first generation: there is none before it to show");
    }
    String taskId = TaskId.of(vm.name(), generation).toString();
    List<String> candidates = taskWorkers.candidates(vm, taskId);
    if (candidates.isEmpty()) {
      throw Problems.conflict(
          "vm '" + name + "' is " + vm.state().status() + " and has not run yet: it has no output");
    }
    RuntimeException failure = null;
    for (String worker : candidates) {
      WorkerRow row = workers.findById(worker).orElse(null);
      if (row == null) {
        continue;
      }
      try {
        return new Read(follow(row, taskId, query, wait), taskId, worker);
      } catch (AgentRejectedException e) {
        if (e.status() != 404) {
          failure =
              Problems.badGateway(
                  "worker '"
                      + worker
                      + "' refused the logs of task "
                      + taskId
                      + ": "
                      + e.getMessage());
        }
      } catch (RuntimeException e) {
        failure =
            Problems.badGateway(
                "worker '"
                    + worker
                    + "' did not give the logs of task "
                    + taskId
                    + ": "
                    + e.getMessage());
      }
    }
    if (failure != null) {
      throw failure;
    }
    throw Problems.conflict(
        "no worker keeps the logs of task "
            + taskId
            + " (looked on "
            + String.join(", ", candidates)
            + "; a worker deleted takes them with it)");
  }

  private LogChunk follow(WorkerRow worker, String taskId, LogQuery query, Duration wait) {
    long until = System.nanoTime() + wait.toNanos();
    while (true) {
      LogChunk chunk = agents.logs(worker.agent(), taskId, query, calls.timeout());
      if (chunk.bytes().length > 0
          || !chunk.live()
          || query.from() == null
          || System.nanoTime() >= until) {
        return chunk;
      }
      try {
        Thread.sleep(LOOK_AGAIN.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return chunk;
      }
    }
  }
}
