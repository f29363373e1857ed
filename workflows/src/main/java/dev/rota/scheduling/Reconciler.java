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
        String why = null;
        if (id.isEmpty()) {
          why = "not a task id Rota makes";
        } else if (vm == null) {
          why = "no VM " + id.get().vm() + " is placed";
        } else if (!vm.worker().equals(worker)) {
          why = "VM " + vm.name() + " is placed on " + vm.worker();
        } else if (vm.restartCount() != id.get().restartCount()) {
          why = "VM " + vm.name() + " is at restart " + vm.restartCount();
        }
        if (why != null) {
          removals.add(new Reconciliation.TaskRemoval(worker, task.id(), why));
          continue;
        }
        found.put(vm.name(), true);
        boolean started = vm.status() == VmStatus.SCHEDULED && "running".equals(task.state());
        boolean ended = (vm.status() == VmStatus.SCHEDULED || vm.status() == VmStatus.RUNNING) && task.ended();
        if (started || ended) {
          updates.add(new Reconciliation.TaskUpdate(vm.name(), worker, task));
        }
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
}
