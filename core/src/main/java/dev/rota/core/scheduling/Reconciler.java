package dev.rota.core.scheduling;

import dev.rota.agentapi.TaskId;
import dev.rota.core.model.TaskState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares the tasks the scheduler placed (and what it last saw of them) with the task lists of the
 * agents that answered this term, cell by cell of {@link ReconcileTable}: for each task, whether
 * its VM wants it, the scheduler's record, and what its agent says. An agent that did not answer
 * tells nothing: its tasks are neither removed nor missed until it answers or its worker goes
 * offline.
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
      List<VmSnapshot> vms,
      List<PlacedTask> tasks,
      Map<String, List<ObservedTask>> reported,
      Set<String> gone) {
    return reconcile(vms, tasks, reported, gone, Set.of());
  }

  /**
   * @param offline of {@code gone}, the workers offline and still registered: the task of a VM that
   *     keeps through a disconnect is not lost with one of these, only unheard of, until it answers
   *     again or is removed
   */
  public static Reconciliation reconcile(
      List<VmSnapshot> vms,
      List<PlacedTask> tasks,
      Map<String, List<ObservedTask>> reported,
      Set<String> gone,
      Set<String> offline) {
    Map<String, VmSnapshot> vmByName = new HashMap<>();
    vms.forEach(v -> vmByName.put(v.name(), v));
    Map<String, PlacedTask> placedHere = new HashMap<>();
    for (PlacedTask t : tasks) {
      VmSnapshot v = vmByName.get(t.vm());
      // Of two records with one id on one worker, the one of the VM's current submission speaks.
      placedHere.merge(
          t.worker() + "/" + t.taskId(), t, (a, b) -> v != null && v.seq() == b.vmSeq() ? b : a);
    }
    Set<String> newCopyRuns = newCopiesRunning(vmByName, placedHere, reported);
    List<Reconciliation.TaskRemoval> removals = new ArrayList<>();
    List<Reconciliation.TaskTransition> transitions = new ArrayList<>();
    List<PlacedTask> forgotten = new ArrayList<>();
    Set<PlacedTask> listed = new HashSet<>();

    for (Map.Entry<String, List<ObservedTask>> entry : new TreeMap<>(reported).entrySet()) {
      String worker = entry.getKey();
      for (ObservedTask seen : entry.getValue()) {
        PlacedTask task = ofItsSubmission(placedHere.get(worker + "/" + seen.id()), seen);
        VmSnapshot vm = task == null ? null : vmByName.get(task.vm());
        if (task != null) {
          listed.add(task);
        }
        ReconcileTable.Row rule = ReconcileTable.decide(cell(task, vm, seenOf(seen), newCopyRuns));
        switch (rule.action()) {
          case REMOVE ->
              removals.add(
                  new Reconciliation.TaskRemoval(
                      worker,
                      seen.id(),
                      whyUnwanted(seen.id(), task, vm, vmByName),
                      seen.submission(),
                      ofAVmGone(seen, vm, vmByName)));
          case STARTED, ENDED -> transitions.add(transition(task, seen));
          default -> {}
        }
      }
    }

    for (PlacedTask task : byTaskId(tasks)) {
      if (listed.contains(task)) {
        continue;
      }
      VmSnapshot vm = vmByName.get(task.vm());
      // A task kept through its worker's cut: the VM's own, when it keeps through a disconnect, and
      // the old copy of a VM moving live, which still holds the guest until the new copy runs.
      boolean waitedFor =
          offline.contains(task.worker())
              && vm != null
              && (vm.keepsThroughDisconnect() && task.wantedBy(vm)
                  || vm.liveMigration() && task.keptBy(vm));
      ReconcileTable.Seen seen =
          gone.contains(task.worker()) && !waitedFor
              ? ReconcileTable.Seen.SILENT
              : reported.containsKey(task.worker())
                  ? ReconcileTable.Seen.ABSENT
                  : ReconcileTable.Seen.UNKNOWN;
      ReconcileTable.Row rule = ReconcileTable.decide(cell(task, vm, seen, newCopyRuns));
      switch (rule.action()) {
        case FORGET -> forgotten.add(task);
        case VANISHED ->
            transitions.add(
                new Reconciliation.TaskTransition(
                    task,
                    TaskState.VANISHED,
                    null,
                    "task " + task.taskId() + " vanished from worker " + task.worker()));
        case LOST ->
            transitions.add(
                new Reconciliation.TaskTransition(
                    task, TaskState.LOST, null, "worker " + task.worker() + " went offline"));
        default -> {}
      }
    }
    return new Reconciliation(removals, transitions, forgotten, movesEnded(vms, tasks, forgotten));
  }

  /**
   * The moving VMs whose new copy has started, as recorded or as its agent says this term: their
   * old copy is kept no longer. Seen here, the old copy is removed in the term that sees the start
   * rather than the next. A new copy that ended counts too, unless the VM moves live: then the old
   * copy still holds the guest, which runs on there.
   */
  private static Set<String> newCopiesRunning(
      Map<String, VmSnapshot> vmByName,
      Map<String, PlacedTask> placedHere,
      Map<String, List<ObservedTask>> reported) {
    Set<String> running = new HashSet<>();
    for (PlacedTask t : placedHere.values()) {
      VmSnapshot vm = vmByName.get(t.vm());
      if (vm != null
          && vm.moving()
          && t.wantedBy(vm)
          && (vm.liveMigration()
              ? t.state() == TaskState.RUNNING
              : t.state() != TaskState.SCHEDULED)) {
        running.add(vm.name());
      }
    }
    reported.forEach(
        (worker, seen) ->
            seen.forEach(
                s -> {
                  PlacedTask t = placedHere.get(worker + "/" + s.id());
                  VmSnapshot vm = t == null ? null : vmByName.get(t.vm());
                  if (vm != null
                      && vm.moving()
                      && t.wantedBy(vm)
                      && (s.running() || s.ended() && !vm.liveMigration())) {
                    running.add(vm.name());
                  }
                }));
    return running;
  }

  /**
   * The moves whose old copy is gone: no record of an earlier generation of the VM is left on the
   * worker it moved from, once this term's forgotten records are gone. Until then the VM reads as
   * moving.
   */
  private static List<Reconciliation.MoveEnded> movesEnded(
      List<VmSnapshot> vms, List<PlacedTask> tasks, List<PlacedTask> forgotten) {
    Map<String, VmSnapshot> retiring = new HashMap<>();
    vms.stream().filter(v -> v.oldCopyOn() != null).forEach(v -> retiring.put(v.name(), v));
    if (retiring.isEmpty()) {
      return List.of();
    }
    Set<PlacedTask> goneNow = new HashSet<>(forgotten);
    Set<String> stillThere = new HashSet<>();
    for (PlacedTask t : tasks) {
      VmSnapshot v = retiring.get(t.vm());
      if (v != null
          && t.vmSeq() == v.seq()
          && t.generation() < v.restartCount()
          && t.worker().equals(v.oldCopyOn())
          && !goneNow.contains(t)) {
        stillThere.add(v.name());
      }
    }
    return retiring.values().stream()
        .filter(v -> !stillThere.contains(v.name()))
        .sorted(java.util.Comparator.comparing(VmSnapshot::name))
        .map(v -> new Reconciliation.MoveEnded(v.name(), v.seq(), v.oldCopyOn()))
        .toList();
  }

  /**
   * What one task's state, as its agent reports it between terms, changes for the task the
   * scheduler placed: the same table, of which only a start or an end is acted on here (a task
   * nobody wants is the term's to remove).
   *
   * @param task the placed task the report is about, or null when none is
   * @param vm the VM the task is of, or null when there is none
   */
  public static Optional<Reconciliation.TaskTransition> reported(
      PlacedTask task, VmSnapshot vm, String worker, ObservedTask seen) {
    if (ofItsSubmission(task, seen) == null
        || !task.worker().equals(worker)
        || !task.taskId().equals(seen.id())) {
      return Optional.empty();
    }
    ReconcileTable.Action action =
        ReconcileTable.decide(cell(task, vm, seenOf(seen), Set.of())).action();
    return action == ReconcileTable.Action.STARTED || action == ReconcileTable.Action.ENDED
        ? Optional.of(transition(task, seen))
        : Optional.empty();
  }

  /**
   * The placed task a listed one is, or null: a task id is shared by every VM submitted under a
   * name, and a task its agent says is of another submission (a VM deleted since) is not this
   * record's, whatever its id.
   */
  private static PlacedTask ofItsSubmission(PlacedTask task, ObservedTask seen) {
    return task != null && seen.ofSubmission(task.vmSeq()) ? task : null;
  }

  /**
   * @param newCopyRuns moving VMs whose new copy runs: their old copy is not kept
   */
  static ReconcileTable.Cell cell(
      PlacedTask task, VmSnapshot vm, ReconcileTable.Seen seen, Set<String> newCopyRuns) {
    if (task == null) {
      return new ReconcileTable.Cell(
          ReconcileTable.Want.UNWANTED, ReconcileTable.Record.NONE, seen);
    }
    ReconcileTable.Want want =
        task.wantedBy(vm)
            ? ReconcileTable.Want.WANTED
            : task.keptBy(vm) && !newCopyRuns.contains(vm.name())
                ? ReconcileTable.Want.KEPT
                : ReconcileTable.Want.UNWANTED;
    ReconcileTable.Record record =
        switch (task.state()) {
          case SCHEDULED -> ReconcileTable.Record.SCHEDULED;
          case RUNNING -> ReconcileTable.Record.RUNNING;
          default -> ReconcileTable.Record.ENDED;
        };
    return new ReconcileTable.Cell(want, record, seen);
  }

  static ReconcileTable.Seen seenOf(ObservedTask task) {
    if (task.ended()) {
      return ReconcileTable.Seen.ENDED;
    }
    return task.running() ? ReconcileTable.Seen.RUNNING : ReconcileTable.Seen.STARTING;
  }

  /** The transition a listed task makes: started, or ended as its agent says. */
  private static Reconciliation.TaskTransition transition(PlacedTask task, ObservedTask seen) {
    if (!seen.ended()) {
      return new Reconciliation.TaskTransition(
          task,
          TaskState.RUNNING,
          null,
          "task " + task.taskId() + " running on worker " + task.worker());
    }
    if (seen.exited()) {
      return new Reconciliation.TaskTransition(
          task,
          TaskState.EXITED,
          seen.exitCode(),
          "task " + task.taskId() + " exited with code " + seen.exitCode());
    }
    return new Reconciliation.TaskTransition(
        task,
        TaskState.FAILED,
        seen.exitCode(),
        "task "
            + task.taskId()
            + " failed"
            + (seen.message() == null ? "" : ": " + seen.message()));
  }

  /**
   * Whether the VM a task ran for is gone: none holds its name now (the task's record's, else its
   * id's), or the one that does is another submission than the task's agent said it is of.
   */
  private static boolean ofAVmGone(
      ObservedTask seen, VmSnapshot vm, Map<String, VmSnapshot> vmByName) {
    VmSnapshot named =
        vm != null ? vm : TaskId.parse(seen.id()).map(id -> vmByName.get(id.vm())).orElse(null);
    return named == null || seen.submission() != null && named.seq() != seen.submission();
  }

  private static String whyUnwanted(
      String id, PlacedTask task, VmSnapshot vm, Map<String, VmSnapshot> vmByName) {
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

  /**
   * The tasks in the order of their ids, each id built once: a comparator that built both ids on
   * every comparison made 300,000 strings a term at 10,000 tasks (8% of the term's CPU).
   */
  private static List<PlacedTask> byTaskId(List<PlacedTask> tasks) {
    return tasks.stream()
        .map(t -> Map.entry(t.taskId(), t))
        .sorted(Map.Entry.comparingByKey())
        .map(Map.Entry::getValue)
        .toList();
  }
}
