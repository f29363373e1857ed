package dev.rota.api.vms;

import dev.rota.agentapi.PortSpec;
import dev.rota.agentapi.TaskId;
import dev.rota.core.model.VmStatus;
import dev.rota.store.AgentTaskRepository;
import dev.rota.store.AgentTaskRow;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a running VM's named ports are reached: its worker's address (the host of the URL its agent
 * registered) and the port that worker's agent gave each, as the scheduler's last look at the agent
 * found them. A VM that does not run has none.
 */
@Singleton
public class VmEndpoints {
  /**
   * One named port, reached.
   *
   * @param name the port's name in the spec
   * @param port its port in the guest
   * @param address {@code host:port} on the worker
   */
  @Serdeable
  public record Endpoint(String name, int port, String address) {}

  private final AgentTaskRepository tasks;
  private final WorkerRepository workers;

  public VmEndpoints(AgentTaskRepository tasks, WorkerRepository workers) {
    this.tasks = tasks;
    this.workers = workers;
  }

  public List<Endpoint> of(VmRow vm) {
    String worker = vm.state().worker();
    if (vm.spec().ports().isEmpty()
        || worker == null
        || !VmStatus.RUNNING.wireName().equals(vm.state().status())) {
      return List.of();
    }
    String taskId = TaskId.of(vm.taskName(), vm.state().restartCount()).toString();
    Optional<AgentTaskRow> task = tasks.findById(worker + "/" + taskId);
    Optional<String> host = workers.findById(worker).map(w -> URI.create(w.endpoint()).getHost());
    if (task.isEmpty() || host.isEmpty()) {
      return List.of();
    }
    List<Endpoint> endpoints = new ArrayList<>();
    for (PortSpec p : vm.spec().ports()) {
      Integer at = task.get().ports().get(p.name());
      if (at != null) {
        endpoints.add(new Endpoint(p.name(), p.port(), hostPort(host.get(), at)));
      }
    }
    return List.copyOf(endpoints);
  }

  private static String hostPort(String host, int port) {
    return (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }
}
