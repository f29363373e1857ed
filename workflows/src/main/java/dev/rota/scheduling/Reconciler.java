package dev.rota.scheduling;

import dev.rota.workflows.model.VmStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares what should run (VMs placed on workers) with what does (the task lists of the agents
 * that answered this term). An agent that did not answer tells nothing: its tasks are neither removed
 * nor missed until it answers or its worker goes offline.
 */
public final class Reconciler {
  private Reconciler() {}

  public static Reconciliation reconcile(
      List<PlacedVm> placed, Map<String, List<ObservedTask>> tasksOfReachableWorkers, Set<String> offlineWorkers) {
    Map<String, PlacedVm> byName = new HashMap<>();
    placed.forEach(vm -> byName.put(vm.name(), vm));
    List<Reconciliation.TaskRemoval> removals = new ArrayList<>();
    List<Reconciliation.TaskUpdate> updates = new ArrayList<>();
    Map<String, Boolean> found = new HashMap<>();

    for (Map.Entry<String, List<ObservedTask>> entry : new TreeMap<>(tasksOfReachableWorkers).entrySet()) {
      String worker = entry.getKey();
      for (ObservedTask task : entry.getValue()) {
        Optional<TaskId> id = TaskId.parse(task.id());
        PlacedVm vm = id.map(i -> byName.get(i.vm())).orElse(null);
        String why = whyNotItsTask(id, vm, worker);
        if (why != null) {
          removals.add(new Reconciliation.TaskRemoval(worker, task.id(), why));
          continue;
        }
        found.put(vm.name(), true);
        change(vm, worker, task).ifPresent(updates::add);
      }
    }

    List<Reconciliation.VmFailure> failures = new ArrayList<>();
    for (PlacedVm vm : placed.stream().sorted(java.util.Comparator.comparing(PlacedVm::name)).toList()) {
      boolean active = vm.status() == VmStatus.SCHEDULED || vm.status() == VmStatus.RUNNING;
      if (!active) {
        continue;
      }
      if (offlineWorkers.contains(vm.worker())) {
        failures.add(new Reconciliation.VmFailure(vm.name(), vm.worker(), "worker " + vm.worker() + " went offline"));
      } else if (vm.status() == VmStatus.RUNNING
          && tasksOfReachableWorkers.containsKey(vm.worker())
          && !found.containsKey(vm.name())) {
        failures.add(new Reconciliation.VmFailure(vm.name(), vm.worker(), "task " + vm.taskId() + " vanished from worker " + vm.worker()));
      }
    }
    return new Reconciliation(removals, failures, updates);
  }

  /**
   * What one task's state, reported by its agent between terms, means for its VM: an update when the
   * task is the VM's current one on that worker and it started or ended; nothing otherwise (a task
   * that is not the VM's is left to the next term's reconciliation, which removes it).
   *
   * @param vm the VM the task id names, or null when there is none
   */
  public static Optional<Reconciliation.TaskUpdate> reported(PlacedVm vm, String worker, ObservedTask task) {
    if (vm == null || whyNotItsTask(TaskId.parse(task.id()), vm, worker) != null) {
      return Optional.empty();
    }
    return change(vm, worker, task);
  }

  /** Why a task on {@code worker} is not the current task of {@code vm}; null when it is. */
  private static String whyNotItsTask(Optional<TaskId> id, PlacedVm vm, String worker) {
    if (id.isEmpty()) {
      return "not a task id Rota makes";
    } else if (vm == null || !vm.name().equals(id.get().vm())) {
      return "no VM " + id.get().vm() + " is placed";
    } else if (!worker.equals(vm.worker())) {
      return "VM " + vm.name() + " is placed on " + vm.worker();
    } else if (vm.restartCount() != id.get().restartCount()) {
      return "VM " + vm.name() + " is at restart " + vm.restartCount();
    }
    return null;
  }

  /** A scheduled VM whose task runs has started; a scheduled or running VM whose task ended has ended. */
  private static Optional<Reconciliation.TaskUpdate> change(PlacedVm vm, String worker, ObservedTask task) {
    boolean started = vm.status() == VmStatus.SCHEDULED && "running".equals(task.state());
    boolean ended = (vm.status() == VmStatus.SCHEDULED || vm.status() == VmStatus.RUNNING) && task.ended();
    return started || ended ? Optional.of(new Reconciliation.TaskUpdate(vm.name(), worker, task)) : Optional.empty();
  }
}
