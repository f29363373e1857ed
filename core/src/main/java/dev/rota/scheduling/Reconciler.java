package dev.rota.scheduling;

import dev.rota.model.TaskState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares the tasks the scheduler placed (and what it last saw of them) with the task lists of the
 * agents that answered this term. An agent that did not answer tells nothing: its tasks are neither
 * removed nor missed until it answers or its worker goes offline.
 *
 * <p>The table, for a placed task on its worker:
 *
 * <pre>
 *   agent says        | wanted (its VM's current task)        | not wanted
 *   ------------------+---------------------------------------+------------------------
 *   running           | scheduled: started                    | remove it
 *   exited / failed   | scheduled or running: ended so         | remove it
 *   not listed        | running: vanished; scheduled: wait    | forget it
 *   worker offline    | live: lost                            | forget it
 * </pre>
 *
 * A task the agent lists that nobody placed there is removed. An ended record of a VM's current
 * generation is kept, so that it is neither placed again nor reported twice.
 */
public final class Reconciler {
  private Reconciler() {}

  /**
   * @param vms every VM, as its workflow last recorded it
   * @param tasks every placed task the store knows
   * @param reported the task lists of the agents that answered this term, by worker
   * @param gone workers offline or removed: their tasks are lost
   */
  public static Reconciliation reconcile(
      List<VmSnapshot> vms, List<PlacedTask> tasks, Map<String, List<ObservedTask>> reported, Set<String> gone) {
    Map<String, VmSnapshot> vmByName = new HashMap<>();
    vms.forEach(v -> vmByName.put(v.name(), v));
    Map<String, PlacedTask> placedHere = new HashMap<>();
    for (PlacedTask t : tasks) {
      VmSnapshot v = vmByName.get(t.vm());
      // Of two records with one id on one worker, the one of the VM's current submission speaks.
      placedHere.merge(t.worker() + "/" + t.taskId(), t, (a, b) -> v != null && v.seq() == b.vmSeq() ? b : a);
    }
    List<Reconciliation.TaskRemoval> removals = new ArrayList<>();
    List<Reconciliation.TaskTransition> transitions = new ArrayList<>();
    Set<PlacedTask> listed = new HashSet<>();

    for (Map.Entry<String, List<ObservedTask>> entry : new TreeMap<>(reported).entrySet()) {
      String worker = entry.getKey();
      for (ObservedTask seen : entry.getValue()) {
        PlacedTask task = placedHere.get(worker + "/" + seen.id());
        VmSnapshot vm = task == null ? null : vmByName.get(task.vm());
        if (task == null || !task.wantedBy(vm)) {
          removals.add(new Reconciliation.TaskRemoval(worker, seen.id(), whyUnwanted(seen.id(), task, vm, vmByName)));
          if (task != null) {
            listed.add(task);
          }
          continue;
        }
        listed.add(task);
        step(task, seen).ifPresent(transitions::add);
      }
    }

    List<PlacedTask> forgotten = new ArrayList<>();
    for (PlacedTask task : tasks.stream().sorted(Comparator.comparing(PlacedTask::taskId)).toList()) {
      if (listed.contains(task)) {
        continue;
      }
      VmSnapshot vm = vmByName.get(task.vm());
      boolean wanted = task.wantedBy(vm);
      boolean silent = gone.contains(task.worker());
      boolean absent = silent || reported.containsKey(task.worker());
      if (!absent) {
        continue; // its agent did not answer: nothing is known
      }
      if (wanted && task.state() == TaskState.RUNNING && !silent) {
        transitions.add(new Reconciliation.TaskTransition(task, TaskState.VANISHED, null,
            "task " + task.taskId() + " vanished from worker " + task.worker()));
      } else if (wanted && task.state().live() && silent) {
        transitions.add(new Reconciliation.TaskTransition(task, TaskState.LOST, null, "worker " + task.worker() + " went offline"));
      } else if (!wanted && (task.state().live() || movedOn(task, vm))) {
        forgotten.add(task);
      }
    }
    return new Reconciliation(removals, transitions, forgotten);
  }

  /**
   * What one task's state, as its agent reports it, changes for the task the scheduler placed: a
   * wanted task that started or ended moves on; anything else changes nothing here (a task nobody
   * wants is the term's to remove).
   *
   * @param task the placed task the report is about, or null when none is
   * @param vm the VM the task is of, or null when there is none
   */
  public static Optional<Reconciliation.TaskTransition> reported(PlacedTask task, VmSnapshot vm, String worker, ObservedTask seen) {
    if (task == null || !task.wantedBy(vm) || !task.worker().equals(worker) || !task.taskId().equals(seen.id())) {
      return Optional.empty();
    }
    return step(task, seen);
  }

  /** A scheduled task seen running has started; a live task seen ended has ended, as the agent says. */
  private static Optional<Reconciliation.TaskTransition> step(PlacedTask task, ObservedTask seen) {
    if (task.state() == TaskState.SCHEDULED && "running".equals(seen.state())) {
      return Optional.of(new Reconciliation.TaskTransition(task, TaskState.RUNNING, null,
          "task " + task.taskId() + " running on worker " + task.worker()));
    }
    if (task.state().live() && seen.ended()) {
      if ("exited".equals(seen.state())) {
        return Optional.of(new Reconciliation.TaskTransition(task, TaskState.EXITED, seen.exitCode(),
            "task " + task.taskId() + " exited with code " + seen.exitCode()));
      }
      return Optional.of(new Reconciliation.TaskTransition(task, TaskState.FAILED, seen.exitCode(),
          "task " + task.taskId() + " failed" + (seen.message() == null ? "" : ": " + seen.message())));
    }
    return Optional.empty();
  }

  /** Whether the VM went on to another generation or submission, or is gone: the record says nothing any more. */
  private static boolean movedOn(PlacedTask task, VmSnapshot vm) {
    return vm == null || vm.seq() != task.vmSeq() || vm.restartCount() > task.generation();
  }

  private static String whyUnwanted(String id, PlacedTask task, VmSnapshot vm, Map<String, VmSnapshot> vmByName) {
    Optional<TaskId> parsed = TaskId.parse(id);
    if (parsed.isEmpty()) {
      return "not a task id Rota makes";
    }
    VmSnapshot named = vm != null ? vm : vmByName.get(parsed.get().vm());
    if (named == null) {
      return "no VM " + parsed.get().vm() + " exists";
    } else if (task == null || named.seq() != task.vmSeq()) {
      return "VM " + named.name() + " has no task " + id + " on this worker";
    } else if (named.restartCount() != task.generation()) {
      return "VM " + named.name() + " is at restart " + named.restartCount();
    }
    return "VM " + named.name() + " is " + named.status().wireName();
  }
}
