package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.TaskState;
import dev.rota.core.model.VmStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconcilerTest {
  static ObservedTask running(String id) {
    return new ObservedTask(id, "running", null, null);
  }

  static VmSnapshot vm(String name, long seq, VmStatus status, int generation) {
    return VmSnapshot.builder(name, seq, "process", Map.of("cpu", 1L))
        .status(status)
        .restartCount(generation)
        .build();
  }

  static PlacedTask task(String vm, long seq, int generation, String worker, TaskState state) {
    return new PlacedTask(vm, seq, generation, worker, state);
  }

  private static List<String> transitions(Reconciliation r) {
    return r.transitions().stream().map(t -> t.task().taskId() + ":" + t.to().wireName()).toList();
  }

  @Test
  void tasksNoVmWantsOnThatWorkerAreRemoved() {
    Reconciliation r =
        Reconciler.reconcile(
            List.of(vm("a", 1, VmStatus.RUNNING, 0)),
            List.of(task("a", 1, 0, "w1", TaskState.RUNNING)),
            Map.of(
                "w1",
                List.of(running("a.0"), running("ghost.0"), running("not-ours")),
                "w2",
                List.of(running("a.0"))),
            Set.of());
    List<String> removed =
        r.removals().stream()
            .map(
                x ->
                    x.worker()
                        + "/"
                        + x.taskId()
                        + ": "
                        + x.why()
                        + (x.vmGone() ? " (its logs go)" : ""))
            .sorted()
            .toList();
    assertEquals(
        List.of(
            "w1/ghost.0: no VM ghost exists (its logs go)",
            "w1/not-ours: not a task id Rota makes (its logs go)",
            "w2/a.0: VM a has no task a.0 on this worker"),
        removed);
    assertTrue(r.transitions().isEmpty() && r.forgotten().isEmpty());
  }

  @Test
  void aTaskOfAVmDeletedUnderTheSameNameIsRemovedForItsOwnSubmissionNotTakenForTheNewVms() {
    // VM a, submission 7, placed on w1 as a.0; w1 still runs a.0 of submission 3, deleted since.
    List<VmSnapshot> vms = List.of(vm("a", 7, VmStatus.SCHEDULED, 0));
    List<PlacedTask> tasks = List.of(task("a", 7, 0, "w1", TaskState.SCHEDULED));
    ObservedTask old = new ObservedTask("a.0", "running", null, null, 3L);
    Reconciliation r = Reconciler.reconcile(vms, tasks, Map.of("w1", List.of(old)), Set.of());
    assertEquals(List.of(), r.transitions(), "not started: that task is not submission 7's");
    assertEquals(1, r.removals().size());
    assertEquals(3L, r.removals().get(0).submission(), "its removal names its own submission");
    assertTrue(r.removals().get(0).vmGone(), "submission 3 is deleted: its logs go");
    assertEquals(
        Optional.empty(),
        Reconciler.reported(tasks.get(0), vms.get(0), "w1", old),
        "nor does its agent's report start it");
    ObservedTask own = new ObservedTask("a.0", "running", null, null, 7L);
    assertEquals(
        TaskState.RUNNING,
        Reconciler.reconcile(vms, tasks, Map.of("w1", List.of(own)), Set.of())
            .transitions()
            .get(0)
            .to());
    assertEquals(
        TaskState.RUNNING,
        Reconciler.reconcile(vms, tasks, Map.of("w1", List.of(running("a.0"))), Set.of())
            .transitions()
            .get(0)
            .to(),
        "an agent that names no submission: as before");
  }

  @Test
  void aTaskOfAnOldGenerationOrOfAStoppedVmIsRemovedAndForgottenOnceGone() {
    List<VmSnapshot> vms =
        List.of(vm("a", 1, VmStatus.SCHEDULED, 2), vm("b", 2, VmStatus.STOPPED, 0));
    List<PlacedTask> tasks =
        List.of(
            task("a", 1, 1, "w1", TaskState.RUNNING),
            task("a", 1, 2, "w1", TaskState.SCHEDULED),
            task("b", 2, 0, "w1", TaskState.RUNNING));
    Reconciliation listed =
        Reconciler.reconcile(
            vms, tasks, Map.of("w1", List.of(running("a.1"), running("b.0"))), Set.of());
    assertEquals(
        List.of("a.1: VM a is at restart 2", "b.0: VM b is stopped"),
        listed.removals().stream().map(x -> x.taskId() + ": " + x.why()).toList());
    assertTrue(
        listed.removals().stream().noneMatch(Reconciliation.TaskRemoval::vmGone),
        "their VMs are there: their logs are kept for them");
    assertTrue(listed.forgotten().isEmpty(), "still on the agent: still holding its resources");

    Reconciliation gone = Reconciler.reconcile(vms, tasks, Map.of("w1", List.of()), Set.of());
    assertEquals(List.of("a.1", "b.0"), gone.forgotten().stream().map(PlacedTask::taskId).toList());
    assertTrue(gone.transitions().isEmpty(), "a scheduled task may not have started yet");
  }

  @Test
  void aWantedRunningTaskGoneFromAnAgentThatAnsweredVanishes() {
    Reconciliation r =
        Reconciler.reconcile(
            List.of(vm("a", 1, VmStatus.RUNNING, 0), vm("b", 2, VmStatus.SCHEDULED, 0)),
            List.of(
                task("a", 1, 0, "w1", TaskState.RUNNING),
                task("b", 2, 0, "w1", TaskState.SCHEDULED)),
            Map.of("w1", List.of()),
            Set.of());
    assertEquals(List.of("a.0:vanished"), transitions(r));
    assertEquals("task a.0 vanished from worker w1", r.transitions().get(0).message());
  }

  @Test
  void anAgentThatDidNotAnswerTellsNothing() {
    Reconciliation r =
        Reconciler.reconcile(
            List.of(vm("a", 1, VmStatus.RUNNING, 0)),
            List.of(task("a", 1, 0, "w1", TaskState.RUNNING)),
            Map.of(),
            Set.of());
    assertTrue(r.transitions().isEmpty() && r.removals().isEmpty() && r.forgotten().isEmpty());
  }

  @Test
  void liveTasksOnAnOfflineWorkerAreLostNamingItAndUnwantedOnesForgotten() {
    Reconciliation r =
        Reconciler.reconcile(
            List.of(
                vm("a", 1, VmStatus.RUNNING, 0),
                vm("b", 2, VmStatus.STOPPING, 0),
                vm("c", 3, VmStatus.FAILED, 0),
                vm("d", 4, VmStatus.RUNNING, 0)),
            List.of(
                task("a", 1, 0, "w1", TaskState.RUNNING),
                task("b", 2, 0, "w1", TaskState.RUNNING),
                task("c", 3, 0, "w1", TaskState.EXITED),
                task("d", 4, 0, "w1", TaskState.EXITED)),
            Map.of(),
            Set.of("w1"));
    assertEquals(List.of("a.0:lost"), transitions(r));
    assertEquals("worker w1 went offline", r.transitions().get(0).message());
    assertEquals(
        List.of("b.0", "c.0"),
        r.forgotten().stream().map(PlacedTask::taskId).toList(),
        "d's end is recorded and its workflow not told yet: its record stays, so it is neither placed again nor lost too");
  }

  @Test
  void startedAndEndedTasksMoveOnOnceAndOnlyFromALiveState() {
    List<VmSnapshot> vms =
        List.of(
            vm("a", 1, VmStatus.PENDING, 0),
            vm("b", 2, VmStatus.RUNNING, 1),
            vm("c", 3, VmStatus.RUNNING, 0));
    List<PlacedTask> tasks =
        List.of(
            task("a", 1, 0, "w1", TaskState.SCHEDULED),
            task("b", 2, 1, "w1", TaskState.RUNNING),
            task("c", 3, 0, "w1", TaskState.EXITED));
    ObservedTask exited = new ObservedTask("b.1", "exited", 3, null);
    ObservedTask failed = new ObservedTask("c.0", "failed", null, "no such image");
    Reconciliation r =
        Reconciler.reconcile(
            vms, tasks, Map.of("w1", List.of(running("a.0"), exited, failed)), Set.of());
    assertEquals(
        List.of("a.0:running", "b.1:exited"),
        transitions(r),
        "a's workflow has not heard of the placement yet, and still wants the task; c's end was recorded before");
    assertEquals(3, r.transitions().get(1).exitCode());
    assertEquals("task b.1 exited with code 3", r.transitions().get(1).message());
  }

  @Test
  void aVmSubmittedAgainUnderItsNameIsNotTheOldSubmissionsTask() {
    // "a" was deleted and submitted again (seq 9): the old submission's task a.0 is not the new
    // one's.
    List<VmSnapshot> vms = List.of(vm("a", 9, VmStatus.PENDING, 0));
    List<PlacedTask> tasks = List.of(task("a", 4, 0, "w1", TaskState.RUNNING));
    Reconciliation r =
        Reconciler.reconcile(vms, tasks, Map.of("w1", List.of(running("a.0"))), Set.of());
    assertEquals(
        List.of("a.0"), r.removals().stream().map(Reconciliation.TaskRemoval::taskId).toList());
    assertTrue(r.transitions().isEmpty());
  }

  @Test
  void aReportBetweenTermsMovesOnlyTheVmsCurrentTaskOnItsOwnWorker() {
    VmSnapshot a = vm("a", 1, VmStatus.RUNNING, 1);
    PlacedTask scheduled = task("a", 1, 1, "w1", TaskState.SCHEDULED);
    PlacedTask running = task("a", 1, 1, "w1", TaskState.RUNNING);
    ObservedTask exited = new ObservedTask("a.1", "exited", 3, "exited with code 3");

    assertEquals(
        TaskState.RUNNING,
        Reconciler.reported(scheduled, a, "w1", running("a.1")).orElseThrow().to());
    assertEquals(
        TaskState.EXITED, Reconciler.reported(running, a, "w1", exited).orElseThrow().to());
    assertTrue(
        Reconciler.reported(running, a, "w1", running("a.1")).isEmpty(),
        "already running: nothing to change");
    assertTrue(
        Reconciler.reported(scheduled, a, "w2", running("a.1")).isEmpty(),
        "another worker cannot speak for w1's task");
    assertTrue(
        Reconciler.reported(scheduled, a, "w1", running("a.0")).isEmpty(),
        "another generation changes nothing");
    assertTrue(Reconciler.reported(null, a, "w1", running("a.1")).isEmpty(), "nothing placed");
    assertTrue(
        Reconciler.reported(running.withState(TaskState.EXITED), a, "w1", exited).isEmpty(),
        "already ended");
    assertTrue(
        Reconciler.reported(running, vm("a", 1, VmStatus.STOPPING, 1), "w1", exited).isEmpty(),
        "the user stopped it");
  }

  @Test
  void aMovingVmsOldCopyRunsUntilItsNewOneHasStartedAndIsThenRemoved() {
    VmSnapshot moving =
        VmSnapshot.builder("web-0", 1, "process", Map.of("cpu", 1L))
            .status(VmStatus.RUNNING)
            .restartCount(1)
            .set("web")
            .movingFrom("w1")
            .build();
    List<PlacedTask> tasks =
        List.of(
            task("web-0", 1, 0, "w1", TaskState.RUNNING),
            task("web-0", 1, 1, "w2", TaskState.SCHEDULED));
    Map<String, List<ObservedTask>> reported =
        Map.of(
            "w1",
            List.of(running("web-0.0")),
            "w2",
            List.of(new ObservedTask("web-0.1", "starting", null, null)));

    Reconciliation underWay = Reconciler.reconcile(List.of(moving), tasks, reported, Set.of());
    assertTrue(underWay.removals().isEmpty(), "the old copy is kept: " + underWay.removals());
    assertTrue(underWay.transitions().isEmpty() && underWay.forgotten().isEmpty());

    VmSnapshot moved =
        VmSnapshot.builder("web-0", 1, "process", Map.of("cpu", 1L))
            .status(VmStatus.RUNNING)
            .restartCount(1)
            .set("web")
            .build();
    List<PlacedTask> started = List.of(tasks.get(0), task("web-0", 1, 1, "w2", TaskState.RUNNING));
    Reconciliation done =
        Reconciler.reconcile(
            List.of(moved),
            started,
            Map.of("w1", List.of(running("web-0.0")), "w2", List.of(running("web-0.1"))),
            Set.of());
    assertEquals(
        List.of("w1/web-0.0"),
        done.removals().stream().map(x -> x.worker() + "/" + x.taskId()).toList());

    Reconciliation oldGone =
        Reconciler.reconcile(
            List.of(moving), tasks, Map.of("w1", List.of(), "w2", List.of()), Set.of());
    assertEquals(
        List.of("web-0.0"),
        oldGone.forgotten().stream().map(PlacedTask::taskId).toList(),
        "an old copy gone is forgotten; the new one may not have started yet");
    assertTrue(oldGone.transitions().isEmpty());
  }

  @Test
  void aLiveMovesNewCopyThatEndedLeavesTheOldOneRunningAndTellsTheEnd() {
    VmSnapshot box = liveFromW1ToW2();
    List<PlacedTask> tasks = liveMoveTasks();
    Map<String, List<ObservedTask>> reported =
        Map.of(
            "w1",
            List.of(running("dev.0")),
            "w2",
            List.of(new ObservedTask("dev.1", "failed", null, "the VM did not arrive")));
    Reconciliation r = Reconciler.reconcile(List.of(box), tasks, reported, Set.of());
    assertEquals(List.of(), r.removals(), "the guest still runs on w1");
    assertEquals(
        List.of("dev.1 failed"),
        r.transitions().stream().map(t -> t.task().taskId() + " " + t.to().wireName()).toList());
  }

  @Test
  void aLiveMovesOldCopyIsKeptThroughItsWorkersCutAsTheGuestMayStillRunThere() {
    VmSnapshot box = liveFromW1ToW2();
    List<PlacedTask> tasks = liveMoveTasks();
    Map<String, List<ObservedTask>> reported =
        Map.of("w2", List.of(new ObservedTask("dev.1", "starting", null, null)));
    Reconciliation cut =
        Reconciler.reconcile(List.of(box), tasks, reported, Set.of("w1"), Set.of("w1"));
    assertEquals(List.of(), cut.forgotten(), "its record stays: the move may yet fail");
    assertEquals(List.of(), cut.transitions());
    Reconciliation removed = Reconciler.reconcile(List.of(box), tasks, reported, Set.of("w1"));
    assertEquals(
        List.of("dev.0"),
        removed.forgotten().stream().map(PlacedTask::taskId).toList(),
        "a worker removed takes it along");
  }

  /** A dev box moving live from w1, where its guest runs, to w2, its disk with it. */
  private static VmSnapshot liveFromW1ToW2() {
    return Fixtures.withDisk(
        VmSnapshot.builder("dev", 1, "qemu", Map.of("cpu", 1L))
            .status(VmStatus.RUNNING)
            .restartCount(1)
            .movingFrom("w1")
            .build(),
        "w2",
        true);
  }

  /** Its old copy running on w1, its new one placed on w2. */
  private static List<PlacedTask> liveMoveTasks() {
    return List.of(
        task("dev", 1, 0, "w1", TaskState.RUNNING), task("dev", 1, 1, "w2", TaskState.SCHEDULED));
  }

  private static VmSnapshot replica(String movingFrom, String oldCopyOn) {
    return VmSnapshot.builder("web-0", 1, "process", Map.of("cpu", 1L))
        .status(VmStatus.RUNNING)
        .restartCount(1)
        .set("web")
        .movingFrom(movingFrom)
        .restartPolicy(dev.rota.core.model.RestartPolicy.ALWAYS)
        .oldCopyOn(oldCopyOn)
        .build();
  }

  @Test
  void theTermThatSeesAMovesNewCopyRunRemovesTheOldOneAtOnce() {
    List<PlacedTask> tasks =
        List.of(
            task("web-0", 1, 0, "w1", TaskState.RUNNING),
            task("web-0", 1, 1, "w2", TaskState.SCHEDULED));
    Reconciliation r =
        Reconciler.reconcile(
            List.of(replica("w1", null)),
            tasks,
            Map.of("w1", List.of(running("web-0.0")), "w2", List.of(running("web-0.1"))),
            Set.of());
    assertEquals(List.of("web-0.1:running"), transitions(r));
    assertEquals(
        List.of("w1/web-0.0"),
        r.removals().stream().map(x -> x.worker() + "/" + x.taskId()).toList(),
        "not kept for another term once the new copy runs");
    assertTrue(r.movesEnded().isEmpty(), "the old copy still runs");
  }

  @Test
  void aMoveEndsOnlyWhenItsOldCopyIsGoneFromItsWorker() {
    VmSnapshot retiring = replica(null, "w1");
    List<PlacedTask> tasks =
        List.of(
            task("web-0", 1, 0, "w1", TaskState.RUNNING),
            task("web-0", 1, 1, "w2", TaskState.RUNNING));

    Reconciliation stopping =
        Reconciler.reconcile(
            List.of(retiring),
            tasks,
            Map.of("w1", List.of(running("web-0.0")), "w2", List.of(running("web-0.1"))),
            Set.of());
    assertEquals(
        List.of("w1/web-0.0"),
        stopping.removals().stream().map(x -> x.worker() + "/" + x.taskId()).toList());
    assertTrue(
        stopping.movesEnded().isEmpty(), "its old copy is still listed: " + stopping.movesEnded());

    Reconciliation unheard =
        Reconciler.reconcile(
            List.of(retiring), tasks, Map.of("w2", List.of(running("web-0.1"))), Set.of());
    assertTrue(
        unheard.movesEnded().isEmpty(),
        "its old worker did not answer: nothing is known of the old copy");

    Reconciliation gone =
        Reconciler.reconcile(
            List.of(retiring),
            tasks,
            Map.of("w1", List.of(), "w2", List.of(running("web-0.1"))),
            Set.of());
    assertEquals(List.of("web-0.0"), gone.forgotten().stream().map(PlacedTask::taskId).toList());
    assertEquals(List.of(new Reconciliation.MoveEnded("web-0", 1, "w1")), gone.movesEnded());

    Reconciliation offline =
        Reconciler.reconcile(
            List.of(retiring), tasks, Map.of("w2", List.of(running("web-0.1"))), Set.of("w1"));
    assertEquals(
        List.of(new Reconciliation.MoveEnded("web-0", 1, "w1")),
        offline.movesEnded(),
        "gone with its worker (whose agent fenced it)");

    Reconciliation forgottenEarlier =
        Reconciler.reconcile(
            List.of(retiring),
            List.of(tasks.get(1)),
            Map.of("w2", List.of(running("web-0.1"))),
            Set.of());
    assertEquals(
        List.of(new Reconciliation.MoveEnded("web-0", 1, "w1")),
        forgottenEarlier.movesEnded(),
        "no record left: over, whoever forgot it");
  }
}
