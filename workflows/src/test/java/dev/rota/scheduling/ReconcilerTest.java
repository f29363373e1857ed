package dev.rota.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.model.VmStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconcilerTest {
  static ObservedTask running(String id) {
    return new ObservedTask(id, "running", null, null);
  }

  @Test
  void tasksNoVmOwnsAreRemoved() {
    List<PlacedVm> placed = List.of(new PlacedVm("a", VmStatus.RUNNING, "w1", 0));
    Reconciliation r =
        Reconciler.reconcile(
            placed,
            Map.of("w1", List.of(running("a.0"), running("ghost.0"), running("not-ours")), "w2", List.of(running("a.0"))),
            Set.of());
    List<String> removed = r.removals().stream().map(x -> x.worker() + "/" + x.taskId()).sorted().toList();
    assertEquals(List.of("w1/ghost.0", "w1/not-ours", "w2/a.0"), removed);
    assertTrue(r.failures().isEmpty());
  }

  @Test
  void aTaskOfAnOldRestartGenerationIsRemoved() {
    List<PlacedVm> placed = List.of(new PlacedVm("a", VmStatus.SCHEDULED, "w1", 2));
    Reconciliation r = Reconciler.reconcile(placed, Map.of("w1", List.of(running("a.1"), running("a.2"))), Set.of());
    assertEquals(List.of("a.1"), r.removals().stream().map(Reconciliation.TaskRemoval::taskId).toList());
  }

  @Test
  void aRunningVmWhoseTaskVanishedFromAReachableAgentFails() {
    List<PlacedVm> placed = List.of(new PlacedVm("a", VmStatus.RUNNING, "w1", 0), new PlacedVm("b", VmStatus.SCHEDULED, "w1", 0));
    Reconciliation r = Reconciler.reconcile(placed, Map.of("w1", List.of()), Set.of());
    assertEquals(1, r.failures().size(), "a scheduled VM's task may not have started yet");
    assertEquals("task a.0 vanished from worker w1", r.failures().get(0).reason());
  }

  @Test
  void anAgentThatDidNotAnswerTellsNothing() {
    List<PlacedVm> placed = List.of(new PlacedVm("a", VmStatus.RUNNING, "w1", 0));
    Reconciliation r = Reconciler.reconcile(placed, Map.of(), Set.of());
    assertTrue(r.failures().isEmpty() && r.removals().isEmpty());
  }

  @Test
  void vmsOnAnOfflineWorkerFailNamingIt() {
    List<PlacedVm> placed =
        List.of(new PlacedVm("a", VmStatus.RUNNING, "w1", 0), new PlacedVm("b", VmStatus.STOPPING, "w1", 0));
    Reconciliation r = Reconciler.reconcile(placed, Map.of(), Set.of("w1"));
    assertEquals(List.of("worker w1 went offline"), r.failures().stream().map(Reconciliation.VmFailure::reason).toList());
  }

  @Test
  void startedAndEndedTasksAreReportedForTheirVm() {
    List<PlacedVm> placed = List.of(new PlacedVm("a", VmStatus.SCHEDULED, "w1", 0), new PlacedVm("b", VmStatus.RUNNING, "w1", 1));
    ObservedTask exited = new ObservedTask("b.1", "exited", 3, null);
    Reconciliation r = Reconciler.reconcile(placed, Map.of("w1", List.of(running("a.0"), exited)), Set.of());
    assertEquals(List.of("a:running", "b:exited"), r.updates().stream().map(u -> u.vm() + ":" + u.task().state()).toList());
  }

  @Test
  void aReportBetweenTermsUpdatesOnlyTheVmsCurrentTaskOnItsOwnWorker() {
    PlacedVm scheduled = new PlacedVm("a", VmStatus.SCHEDULED, "w1", 1);
    PlacedVm running = new PlacedVm("a", VmStatus.RUNNING, "w1", 1);
    ObservedTask exited = new ObservedTask("a.1", "exited", 3, "exited with code 3");

    assertEquals("a", Reconciler.reported(scheduled, "w1", running("a.1")).orElseThrow().vm());
    assertEquals(exited, Reconciler.reported(running, "w1", exited).orElseThrow().task());
    assertTrue(Reconciler.reported(running, "w1", running("a.1")).isEmpty(), "already running: nothing to change");
    assertTrue(Reconciler.reported(scheduled, "w2", running("a.1")).isEmpty(), "another worker cannot speak for w1's VM");
    assertTrue(Reconciler.reported(scheduled, "w1", running("a.0")).isEmpty(), "an old generation changes nothing");
    assertTrue(Reconciler.reported(scheduled, "w1", running("b.1")).isEmpty(), "a task id naming another VM");
    assertTrue(Reconciler.reported(null, "w1", running("a.1")).isEmpty(), "no VM placed");
    assertTrue(Reconciler.reported(new PlacedVm("a", VmStatus.STOPPED, "w1", 1), "w1", exited).isEmpty(), "already ended");
  }

  @Test
  void taskIdsCarryTheVmAndItsRestartCount() {
    assertEquals("build-42.3", TaskId.of("build-42", 3).toString());
    assertEquals(TaskId.of("build-42", 3), TaskId.parse("build-42.3").orElseThrow());
    for (String bad : List.of("build-42", ".3", "a.", "a.b.3", "a.-1", "a.x")) {
      assertTrue(TaskId.parse(bad).isEmpty(), bad);
    }
  }
}
