package dev.rota.control;

import dev.rota.agentapi.TaskRemovals;
import dev.rota.core.model.WorkerHealth;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.scheduler.term.AgentCalls;
import dev.rota.scheduler.term.RemovedTasks;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerProbeRow;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.vm.VmActivities.WorkerTask;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a VM leaves on its workers besides its rows: its tasks, and the logs its ended tasks kept.
 * Its workflow removes them as it deletes the VM, and a set's pass as it deletes replicas together.
 */
@Singleton
public class VmLeftovers {
  private static final Logger log = LoggerFactory.getLogger(VmLeftovers.class);

  private final WorkerRepository workers;
  private final AgentClient agents;
  private final AgentCallSettings agentCalls;
  private final RemovedTasks removedTasks;
  private final SchedulerWaker scheduler;
  private final TaskWorkers taskWorkers;
  private final ExecutorService callThreads;

  public VmLeftovers(
      WorkerRepository workers,
      AgentClient agents,
      AgentCallSettings agentCalls,
      RemovedTasks removedTasks,
      SchedulerWaker scheduler,
      TaskWorkers taskWorkers,
      @Named(AgentCalls.EXECUTOR) ExecutorService callThreads) {
    this.workers = workers;
    this.agents = agents;
    this.agentCalls = agentCalls;
    this.removedTasks = removedTasks;
    this.scheduler = scheduler;
    this.taskWorkers = taskWorkers;
    this.callThreads = callThreads;
  }

  /**
   * Removes the task from its worker (the agent answers once it has ended); the room it held is
   * free at once, for a VM that waits for it. A worker that is gone took its tasks with it.
   */
  public void removeTask(WorkerTask task) {
    Optional<dev.rota.store.WorkerRow> worker = workers.findById(task.worker());
    if (worker.isEmpty()) {
      return;
    }
    agents.removeTask(
        worker.get().agent(),
        task.taskId(),
        task.submission() == 0 ? null : task.submission(),
        false,
        agentCalls.removalTimeout());
    if (removedTasks.removed(task.worker(), task.taskId())) {
      scheduler.roomFreed("task " + task.taskId() + " removed from " + task.worker());
    }
  }

  /**
   * Removes the tasks of a VM being deleted; one whose agent does not answer is left to the
   * scheduler, which removes a task no VM holds once its agent answers: the VM's rows go all the
   * same.
   */
  public void removeOrLeave(String vm, List<WorkerTask> tasks) {
    for (WorkerTask task : tasks) {
      try {
        removeTask(task);
      } catch (RuntimeException e) {
        log.debug(
            "deleting {}: task {} left on {} to the scheduler: {}",
            vm,
            task.taskId(),
            task.worker(),
            e.toString());
      }
    }
  }

  /**
   * Tells each worker the VM ran on to drop the logs it kept of its tasks. A ready worker that does
   * not answer fails the call, to be tried again (a loaded agent can miss one deadline); one that
   * is not ready keeps them until its own limit drops them (two generations a VM, a week at most),
   * rather than holding the deletion up while it is away.
   */
  public void forgetLogs(VmRow vm) {
    for (String name : taskWorkers.all(vm)) {
      workers
          .findById(name)
          .ifPresent(
              w -> {
                try {
                  agents.forgetLogs(w.agent(), vm.name(), agentCalls.timeout());
                } catch (RuntimeException e) {
                  if (w.health().equals(WorkerHealth.READY.wireName())) {
                    throw e;
                  }
                  log.debug(
                      "worker {} kept the logs of deleted vm {}: {}",
                      name,
                      vm.name(),
                      e.toString());
                }
              });
    }
  }

  /**
   * What {@link #removeOrLeave} and {@link #forgetLogs} do for each of {@code vms}, deleted
   * together: one call to each worker they were on ({@link TaskRemovals#MOST} of each at a time),
   * the workers side by side. What an agent does not answer for now is left, as for one VM: the
   * scheduler removes a task no VM holds once its agent answers, and a worker drops kept logs by
   * its own limit. The room the removed tasks held is free at once.
   */
  public void removeAll(List<VmRow> vms) {
    Map<String, List<TaskRemovals.Task>> tasksOn = new LinkedHashMap<>();
    Map<String, Set<String>> logsOn = new LinkedHashMap<>();
    Map<String, Set<String>> ranOn = taskWorkers.allOf(vms);
    for (VmRow vm : vms) {
      vm.heldTasks()
          .forEach(
              held ->
                  tasksOn
                      .computeIfAbsent(held.worker(), w -> new ArrayList<>())
                      .add(new TaskRemovals.Task(held.taskId(), vm.seq())));
      ranOn
          .get(vm.name())
          .forEach(w -> logsOn.computeIfAbsent(w, x -> new LinkedHashSet<>()).add(vm.name()));
    }
    Set<String> touched = new LinkedHashSet<>(tasksOn.keySet());
    touched.addAll(logsOn.keySet());
    if (touched.isEmpty()) {
      return;
    }
    Map<String, WorkerProbeRow> known =
        workers.probeRowsNamed(touched).stream()
            .collect(Collectors.toMap(WorkerProbeRow::name, Function.identity()));
    List<Future<List<Map.Entry<String, String>>>> calls = new ArrayList<>();
    for (String name : touched) {
      WorkerProbeRow worker = known.get(name);
      if (worker == null) {
        continue; // a worker that is gone took its tasks and logs with it
      }
      calls.add(
          callThreads.submit(
              () ->
                  removeOn(
                      worker,
                      tasksOn.getOrDefault(name, List.of()),
                      new ArrayList<>(logsOn.getOrDefault(name, Set.of())))));
    }
    List<Map.Entry<String, String>> removed = new ArrayList<>();
    for (Future<List<Map.Entry<String, String>>> call : calls) {
      try {
        removed.addAll(call.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while removing deleted VMs' tasks", e);
      } catch (ExecutionException e) {
        log.debug("deleted VMs' leftovers not all removed: {}", e.getCause().toString());
      }
    }
    int freed = removedTasks.removedAll(removed);
    if (freed > 0) {
      scheduler.roomFreed(freed + " tasks of deleted VMs removed");
    }
  }

  /**
   * The removals on one worker, in batches; the (worker, task) of each task it removed. A batch the
   * agent does not answer leaves its tasks to the scheduler and the rest are still asked.
   */
  private List<Map.Entry<String, String>> removeOn(
      WorkerProbeRow worker, List<TaskRemovals.Task> tasks, List<String> vms) {
    List<Map.Entry<String, String>> removed = new ArrayList<>();
    int most = TaskRemovals.MOST;
    for (int from = 0; from < Math.max(tasks.size(), vms.size()); from += most) {
      List<TaskRemovals.Task> some =
          tasks.subList(Math.min(from, tasks.size()), Math.min(from + most, tasks.size()));
      try {
        agents.removeDeleted(
            worker.agent(),
            new TaskRemovals(
                some, vms.subList(Math.min(from, vms.size()), Math.min(from + most, vms.size()))),
            agentCalls.removalTimeout());
        some.forEach(t -> removed.add(Map.entry(worker.name(), t.id())));
      } catch (RuntimeException e) {
        log.debug(
            "{} tasks of deleted VMs left on {} to the scheduler: {}",
            some.size(),
            worker.name(),
            e.toString());
      }
    }
    return removed;
  }
}
