package dev.rota.control;

import dev.rota.core.model.WorkerHealth;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.scheduler.term.RemovedTasks;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.vm.VmActivities.WorkerTask;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
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

  public VmLeftovers(
      WorkerRepository workers,
      AgentClient agents,
      AgentCallSettings agentCalls,
      RemovedTasks removedTasks,
      SchedulerWaker scheduler,
      TaskWorkers taskWorkers) {
    this.workers = workers;
    this.agents = agents;
    this.agentCalls = agentCalls;
    this.removedTasks = removedTasks;
    this.scheduler = scheduler;
    this.taskWorkers = taskWorkers;
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
}
