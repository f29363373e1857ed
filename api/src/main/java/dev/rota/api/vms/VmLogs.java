package dev.rota.api.vms;

import dev.rota.agentapi.TaskId;
import dev.rota.agents.AgentClient;
import dev.rota.agents.AgentRejectedException;
import dev.rota.api.problem.Problems;
import dev.rota.settings.AgentCallSettings;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.util.Set;

/**
 * A VM's output, fetched from the agent that runs (or last ran) its current task, as {@code kubectl
 * logs} or {@code nomad alloc logs} would: the logs stay on the worker, the API passes them
 * through.
 */
@Singleton
public class VmLogs {
  static final Set<String> STREAMS = Set.of("stdout", "stderr");

  private final VmRepository vms;
  private final WorkerRepository workers;
  private final AgentClient agents;
  private final AgentCallSettings calls;

  public VmLogs(
      VmRepository vms, WorkerRepository workers, AgentClient agents, AgentCallSettings calls) {
    this.vms = vms;
    this.workers = workers;
    this.agents = agents;
    this.calls = calls;
  }

  /** The tail of the current task's {@code stream} (stdout when null). */
  public String tail(String name, @Nullable String stream) {
    String which = stream == null ? "stdout" : stream;
    if (!STREAMS.contains(which)) {
      throw Problems.badRequest("stream", "must be stdout or stderr, got " + which);
    }
    VmRow vm = vms.findById(name).orElseThrow(() -> Problems.notFound("vm", name));
    if (vm.state().worker() == null) {
      throw Problems.conflict(
          "vm '"
              + name
              + "' is "
              + vm.state().status()
              + " and on no worker: it has no task to show the output of");
    }
    WorkerRow worker =
        workers
            .findById(vm.state().worker())
            .orElseThrow(
                () ->
                    Problems.conflict(
                        "vm '"
                            + name
                            + "' was on worker '"
                            + vm.state().worker()
                            + "', which is gone, with its logs"));
    String taskId = TaskId.of(vm.name(), vm.state().restartCount()).toString();
    try {
      return agents.logs(worker.agent(), taskId, which, calls.timeout());
    } catch (AgentRejectedException e) {
      if (e.status() == 404) {
        throw Problems.conflict(
            "task " + taskId + " is not (or no longer) on worker '" + worker.name() + "'");
      }
      throw Problems.badGateway(
          "worker '"
              + worker.name()
              + "' refused the logs of task "
              + taskId
              + ": "
              + e.getMessage());
    } catch (RuntimeException e) {
      throw Problems.badGateway(
          "worker '"
              + worker.name()
              + "' did not give the logs of task "
              + taskId
              + ": "
              + e.getMessage());
    }
  }
}
