package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a term places, given the VMs as their workflows recorded them and the tasks as the scheduler
 * observed them.
 */
class TermPlannerTest {
  static final Instant T = Instant.parse("2026-01-01T00:10:00Z");

  static WorkerSnapshot worker(String name, long cpu) {
    Candidate c = Fixtures.ready(name, cpu);
    return new WorkerSnapshot(
        c,
        new WorkerProbeState(name, WorkerHealth.READY, T, T, true, 0, null, null),
        "agent answering");
  }

  /**
   * A worker of 8 CPUs last heard from at {@code lastSeen}, {@code health} by the last term, its
   * agent refusing probes.
   */
  static WorkerSnapshot silentWorker(String name, WorkerHealth health, Instant lastSeen) {
    return new WorkerSnapshot(
        Fixtures.health(Fixtures.ready(name, 8), health),
        new WorkerProbeState(name, health, lastSeen, lastSeen, false, 3, "refused", null),
        health.wireName());
  }

  static VmSnapshot vm(String name, long seq, VmStatus status, int generation, long cpu) {
    return VmSnapshot.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L))
        .status(status)
        .restartCount(generation)
        .build();
  }

  private static TermPlan plan(
      List<WorkerSnapshot> workers, List<VmSnapshot> vms, List<PlacedTask> tasks) {
    Map<String, List<ObservedTask>> reported = Map.of();
    return TermPlanner.plan(
        T,
        null,
        SchedulerProfile.OPTIMIZE_UTILIZATION,
        HealthSettings.defaults(),
        workers,
        vms,
        tasks,
        reported,
        Rebalancing.OFF,
        null);
  }

  private static List<String> placed(TermPlan p) {
    return p.placement().placed().stream().map(x -> x.vm() + "@" + x.worker()).toList();
  }

  @Test
  void aVmIsPlacedWhenItsWorkflowWantsATaskAndItsGenerationHasNone() {
    List<VmSnapshot> vms =
        List.of(
            vm("new", 1, VmStatus.PENDING, 0, 1),
            vm(
                "heard-of",
                2,
                VmStatus.SCHEDULED,
                0,
                1), // its workflow heard of a placement the store no longer has: given back
            vm("not-heard", 3, VmStatus.PENDING, 0, 1), // placed; its workflow has not heard yet
            vm(
                "ended",
                4,
                VmStatus.RUNNING,
                0,
                1), // its task ended; its workflow has not heard yet
            vm("restarted", 5, VmStatus.PENDING, 1, 1),
            vm("stopped", 6, VmStatus.STOPPED, 0, 1));
    List<PlacedTask> tasks =
        List.of(
            new PlacedTask("not-heard", 3, 0, "w1", TaskState.SCHEDULED),
            new PlacedTask("ended", 4, 0, "w1", TaskState.EXITED),
            new PlacedTask("restarted", 5, 0, "w1", TaskState.EXITED));
    assertEquals(
        List.of("new@w1", "heard-of@w1", "restarted@w1"),
        placed(plan(List.of(worker("w1", 8)), vms, tasks)));
  }

  @Test
  void aVmOfANameStillHeldByAnEarlierVmsTaskGoesElsewhereOrWaitsSayingWhy() {
    // "a" was deleted and submitted again (seq 7): its first task has the id of the earlier one's,
    // a.0, still on w1 until its agent no longer lists it.
    List<VmSnapshot> vms = List.of(vm("a", 7, VmStatus.PENDING, 0, 1));
    List<PlacedTask> earlier = List.of(new PlacedTask("a", 3, 0, "w1", TaskState.EXITED));
    assertEquals(
        List.of("a@w2"), placed(plan(List.of(worker("w1", 8), worker("w2", 8)), vms, earlier)));
    TermPlan alone = plan(List.of(worker("w1", 8)), vms, earlier);
    assertEquals(List.of(), placed(alone), "a start on w1 would find the earlier a.0 there");
    assertTrue(
        alone.placement().pending().get(0).reason().contains("earlier VM of its name"),
        alone.placement().pending().toString());
    assertEquals(
        List.of("a@w1"),
        placed(plan(List.of(worker("w1", 8)), vms, List.of())),
        "once its agent no longer lists it, w1 takes the new one");
  }

  @Test
  void aVmAvoidingAnEarlierVmsTaskKeepsItsConstraints() {
    VmSnapshot inB =
        VmSnapshot.builder("a", 7, "process", Map.of("cpu", 1L, "memory", 512L))
            .constraints(
                List.of(new dev.rota.core.model.LabelConstraint("zone", "=", List.of("b"))))
            .build();
    List<PlacedTask> earlier = List.of(new PlacedTask("a", 3, 0, "w1", TaskState.EXITED));
    List<WorkerSnapshot> workers =
        List.of(
            labelled("w1", Map.of("zone", "b")),
            labelled("w2", Map.of("zone", "a")),
            labelled("w3", Map.of("zone", "b")));

    assertEquals(List.of("a@w3"), placed(plan(workers, List.of(inB), earlier)));
  }

  /** A worker of 8 CPUs with {@code labels}. */
  private static WorkerSnapshot labelled(String name, Map<String, String> labels) {
    WorkerSnapshot w = worker(name, 8);
    return new WorkerSnapshot(
        Fixtures.withLabels(w.worker(), labels), w.probe(), w.healthMessage());
  }

  @Test
  void aVmClaimedFromAPoolRunsOnInTheReplicasTaskAndANewVmOfThatNameGoesElsewhere() {
    // "job-42" was claimed from a pool as its replica "runners-7": its task runs on w1 as
    // runners-7.0. A VM since submitted as "runners-7" would have a task of that very id.
    VmSnapshot claimed = Fixtures.claimedAs(vm("job-42", 5, VmStatus.RUNNING, 0, 1), "runners-7");
    List<VmSnapshot> vms = List.of(claimed, vm("runners-7", 9, VmStatus.PENDING, 0, 1));
    List<PlacedTask> tasks =
        List.of(new PlacedTask("job-42", 5, 0, "w1", TaskState.RUNNING, "runners-7"));
    assertEquals("runners-7.0", tasks.get(0).taskId());
    assertEquals("runners-7.0", claimed.taskIdAt(0));
    TermPlan p =
        TermPlanner.plan(
            T,
            null,
            SchedulerProfile.OPTIMIZE_UTILIZATION,
            HealthSettings.defaults(),
            List.of(worker("w1", 8), worker("w2", 8)),
            vms,
            tasks,
            Map.of("w1", List.of(new ObservedTask("runners-7.0", "running", null, null, 5L))),
            Rebalancing.OFF,
            null);
    assertEquals(List.of("runners-7@w2"), placed(p), "job-42 is placed already; runners-7 not w1");
    assertEquals(List.of(), p.reconciliation().removals(), "the claimed VM's task is its own");
    assertEquals(List.of(), p.reconciliation().transitions(), "and it runs as it did");
  }

  @Test
  void liveTasksHoldTheirWorkersResourcesEvenOfAnOldGenerationAndEndedOnesDoNot() {
    List<VmSnapshot> vms =
        List.of(vm("old", 1, VmStatus.PENDING, 1, 3), vm("b", 2, VmStatus.PENDING, 0, 2));
    List<PlacedTask> stillRunning = List.of(new PlacedTask("old", 1, 0, "w1", TaskState.RUNNING));
    TermPlan p = plan(List.of(worker("w1", 4)), vms, stillRunning);
    assertEquals(
        List.of(),
        placed(p),
        "generation 0 still runs (its removal is under way): 3 of 4 cpus are taken");
    List<PlacedTask> ended = List.of(new PlacedTask("old", 1, 0, "w1", TaskState.FAILED));
    assertEquals(List.of("old@w1"), placed(plan(List.of(worker("w1", 4)), vms, ended)));
  }

  /** A VM restarted always, at {@code priority}. */
  static VmSnapshot restarting(
      String name, long seq, VmStatus status, int generation, long cpu, int priority) {
    return Fixtures.atPriority(
        restartingIn("default", name, seq, status, generation, cpu).build(), priority);
  }

  /** A VM of {@code namespace} restarted always, left to be built. */
  static VmSnapshot.Builder restartingIn(
      String namespace, String name, long seq, VmStatus status, int generation, long cpu) {
    return VmSnapshot.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L))
        .status(status)
        .restartCount(generation)
        .restartPolicy(dev.rota.core.model.RestartPolicy.ALWAYS)
        .namespace(namespace);
  }

  private static TermPlan preempting(
      boolean preemption, List<VmSnapshot> vms, List<PlacedTask> tasks) {
    return preempting(preemption, vms, tasks, Map.of());
  }

  private static TermPlan preempting(
      boolean preemption,
      List<VmSnapshot> vms,
      List<PlacedTask> tasks,
      Map<String, dev.rota.core.model.Quota> quotas) {
    return TermPlanner.plan(
        T,
        null,
        SchedulerProfile.OPTIMIZE_UTILIZATION,
        HealthSettings.defaults(),
        List.of(worker("w1", 4)),
        vms,
        tasks,
        Map.of(),
        Rebalancing.OFF,
        null,
        preemption,
        quotas);
  }

  @Test
  void aVmItsNamespacesQuotaKeepsWaitingEvictsNothingAndARunningVmCountsOnce() {
    VmSnapshot nightly = restarting("nightly", 1, VmStatus.RUNNING, 0, 4, 20);
    VmSnapshot release =
        Fixtures.atPriority(restartingIn("ci", "release", 2, VmStatus.PENDING, 0, 4).build(), 80);
    Map<String, dev.rota.core.model.Quota> ciCpu2 =
        Map.of("ci", new dev.rota.core.model.Quota(2L, null, null, null));
    List<PlacedTask> running = List.of(new PlacedTask("nightly", 1, 0, "w1", TaskState.RUNNING));
    TermPlan capped = preempting(true, List.of(nightly, release), running, ciCpu2);
    assertEquals(List.of(), capped.preemptions(), "room it could not use is not made");
    assertEquals(
        "waits for room in namespace ci's quota: cpu quota of 2: 0 running, 4 more asked",
        capped.placement().pending().get(0).reason());
    assertEquals(false, capped.placement().pending().get(0).fitsNowhere());

    // A ci VM on its way from one worker to another holds its quota once, not twice.
    VmSnapshot moving =
        restartingIn("ci", "mover", 3, VmStatus.RUNNING, 1, 1).movingFrom("w1").build();
    VmSnapshot small = restartingIn("ci", "small", 4, VmStatus.PENDING, 0, 1).build();
    TermPlan once =
        preempting(
            false,
            List.of(moving, small),
            List.of(
                new PlacedTask("mover", 3, 0, "w1", TaskState.RUNNING),
                new PlacedTask("mover", 3, 1, "w1", TaskState.SCHEDULED)),
            ciCpu2);
    assertEquals(List.of("small@w1"), placed(once), "1 of 2 held: room for 1 more");
  }

  @Test
  void aWaitingVmOfHigherPriorityEvictsALowerOneWherePreemptionIsOnThenWaitsForItsRoom() {
    VmSnapshot release = restarting("release", 2, VmStatus.PENDING, 0, 4, 80);
    VmSnapshot nightly = restarting("nightly", 1, VmStatus.RUNNING, 0, 4, 20);
    List<PlacedTask> running = List.of(new PlacedTask("nightly", 1, 0, "w1", TaskState.RUNNING));

    TermPlan off = preempting(false, List.of(nightly, release), running);
    assertEquals(List.of(), off.preemptions(), "off unless the cluster asks for it");
    assertEquals(
        "needs cpu 4; the most free on a matching worker is 0",
        off.placement().pending().get(0).reason());

    TermPlan on = preempting(true, List.of(nightly, release), running);
    assertEquals(
        List.of(new Preemptor.Preemption("nightly", 1, 0, 20, "w1", "release", 80)),
        on.preemptions());
    assertEquals(List.of(), placed(on), "placed once its room is free, not before");
    assertEquals(
        "evicting nightly (priority 20) from worker w1 to make room (priority 80): placed once it"
            + " stops",
        on.placement().pending().get(0).reason());

    TermPlan told = preempting(true, List.of(Fixtures.evicted(nightly), release), running);
    assertEquals(List.of(), told.preemptions(), "its workflow has not moved on yet: no more");
    assertEquals(
        "room is being freed for it on worker w1: placed once it is",
        told.placement().pending().get(0).reason());

    VmSnapshot restarted = restarting("nightly", 1, VmStatus.PENDING, 1, 4, 20);
    TermPlan stopping = preempting(true, List.of(restarted, release), running);
    assertEquals(List.of(), stopping.preemptions());
    assertEquals(List.of(), placed(stopping), "the old task still holds its room");

    TermPlan gone =
        preempting(
            true,
            List.of(restarted, release),
            List.of(new PlacedTask("nightly", 1, 0, "w1", TaskState.EXITED)));
    assertEquals(List.of("release@w1"), placed(gone), "the higher first");
    assertEquals(List.of(), gone.preemptions(), "and the lower never evicts it back");
    assertEquals("nightly", gone.placement().pending().get(0).vm());
  }

  @Test
  void theTasksOfARemovedWorkerAreLostOrForgotten() {
    List<VmSnapshot> vms =
        List.of(vm("a", 1, VmStatus.RUNNING, 0, 1), vm("b", 2, VmStatus.FAILED, 1, 1));
    List<PlacedTask> tasks =
        List.of(
            new PlacedTask("a", 1, 0, "gone", TaskState.RUNNING),
            new PlacedTask("b", 2, 0, "gone", TaskState.EXITED));
    Reconciliation r = plan(List.of(worker("w1", 4)), vms, tasks).reconciliation();
    assertEquals(
        List.of("a.0:lost"),
        r.transitions().stream().map(t -> t.task().taskId() + ":" + t.to().wireName()).toList());
    assertEquals(
        List.of("b.0"),
        r.forgotten().stream().map(PlacedTask::taskId).toList(),
        "an old generation's record on a worker nobody will hear from");
    assertTrue(r.removals().isEmpty());
  }

  static VmSnapshot restarting(String name, long seq, long cpu) {
    return VmSnapshot.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L))
        .status(VmStatus.RUNNING)
        .restartPolicy(RestartPolicy.ON_FAILURE)
        .build();
  }

  @Test
  void vmsLostWithAWorkerGoingOfflineThatWouldRestartAreFailedOverInThatTermAndTheOthersAreLost() {
    HealthSettings settings = HealthSettings.defaults();
    Instant lastSeen = T.minus(settings.lostAfter()).minus(settings.offlineAfter()).minusSeconds(1);
    WorkerSnapshot dying = silentWorker("dead", WorkerHealth.LOST, lastSeen);
    List<VmSnapshot> vms =
        List.of(
            restarting("a", 1, 1),
            vm(
                "never",
                2,
                VmStatus.RUNNING,
                0,
                1), // restartPolicy Never: its workflow hears it failed
            restarting(
                "huge", 3,
                16), // no room anywhere now: its workflow hears, and restarts it as its policy says
            restarting("elsewhere", 4, 1));
    List<PlacedTask> tasks =
        List.of(
            new PlacedTask("a", 1, 0, "dead", TaskState.RUNNING),
            new PlacedTask("never", 2, 0, "dead", TaskState.RUNNING),
            new PlacedTask("huge", 3, 0, "dead", TaskState.RUNNING),
            new PlacedTask("elsewhere", 4, 0, "w1", TaskState.RUNNING));
    TermPlan p =
        TermPlanner.plan(
            T,
            null,
            SchedulerProfile.OPTIMIZE_UTILIZATION,
            settings,
            List.of(dying, worker("w1", 4)),
            vms,
            tasks,
            Map.of(),
            Rebalancing.OFF,
            null);

    assertEquals(List.of(new TermPlan.Failover("a", 1, 0, "dead", "w1", null)), p.failovers());
    assertEquals(
        List.of("huge.0:lost", "never.0:lost"),
        p.reconciliation().transitions().stream()
            .map(t -> t.task().taskId() + ":" + t.to().wireName())
            .sorted()
            .toList(),
        "a failed-over VM's lost task is part of its failover, not news of its own");
    assertEquals(List.of(), placed(p), "a failover is not a placement of a pending VM");
    assertEquals(
        List.of(),
        p.placement().pending(),
        "a VM left to its workflow is not explained as pending");
  }

  @Test
  void aVmThatKeepsThroughADisconnectStaysOnItsOfflineWorkerUntilTheWorkerIsRemoved() {
    HealthSettings settings = HealthSettings.defaults();
    Instant lastSeen = T.minus(settings.lostAfter()).minus(settings.offlineAfter()).minusSeconds(1);
    WorkerSnapshot cut = silentWorker("cut", WorkerHealth.LOST, lastSeen);
    VmSnapshot kept =
        VmSnapshot.builder("kept", 1, "process", Map.of("cpu", 1L, "memory", 512L))
            .status(VmStatus.RUNNING)
            .restartPolicy(RestartPolicy.ALWAYS)
            .keepsThroughDisconnect(true)
            .build();
    List<PlacedTask> tasks =
        List.of(
            new PlacedTask("kept", 1, 0, "cut", TaskState.RUNNING),
            new PlacedTask("a", 2, 0, "cut", TaskState.RUNNING));
    TermPlan p =
        TermPlanner.plan(
            T,
            null,
            SchedulerProfile.OPTIMIZE_UTILIZATION,
            settings,
            List.of(cut, worker("w1", 4)),
            List.of(kept, restarting("a", 2, 1)),
            tasks,
            Map.of(),
            Rebalancing.OFF,
            null);
    assertEquals(
        List.of(new TermPlan.Failover("a", 2, 0, "cut", "w1", null)),
        p.failovers(),
        "the default: replaced");
    assertEquals(
        List.of(),
        p.reconciliation().transitions(),
        "kept: neither failed over nor lost while its worker is offline");
    assertEquals(List.of(), placed(p));

    TermPlan removed =
        TermPlanner.plan(
            T,
            null,
            SchedulerProfile.OPTIMIZE_UTILIZATION,
            settings,
            List.of(worker("w1", 4)),
            List.of(kept),
            tasks.subList(0, 1),
            Map.of(),
            Rebalancing.OFF,
            null);
    assertEquals(
        List.of(new TermPlan.Failover("kept", 1, 0, "cut", "w1", null)),
        removed.failovers(),
        "once its worker is removed, it is placed elsewhere");
  }

  /**
   * {@code silent} of {@code workers} workers last heard past the offline deadline, each running
   * one VM that would restart; the rest ready, with room for them all.
   */
  private static TermPlan fleetWithSilent(int workers, int silent, HealthSettings settings) {
    Instant lastSeen = T.minus(settings.lostAfter()).minus(settings.offlineAfter()).minusSeconds(1);
    List<WorkerSnapshot> fleet = new java.util.ArrayList<>();
    List<VmSnapshot> vms = new java.util.ArrayList<>();
    List<PlacedTask> tasks = new java.util.ArrayList<>();
    for (int i = 0; i < workers; i++) {
      if (i < silent) {
        String name = "silent-" + i;
        fleet.add(silentWorker(name, WorkerHealth.LOST, lastSeen));
        vms.add(restarting("vm-" + i, i + 1, 1));
        tasks.add(new PlacedTask("vm-" + i, i + 1, 0, name, TaskState.RUNNING));
      } else {
        fleet.add(worker("ready-" + i, 64));
      }
    }
    return TermPlanner.plan(
        T,
        null,
        SchedulerProfile.OPTIMIZE_UTILIZATION,
        settings,
        fleet,
        vms,
        tasks,
        Map.of(),
        Rebalancing.OFF,
        null);
  }

  private static List<WorkerHealth> healthOfSilent(TermPlan p) {
    return p.healthChanges().stream()
        .filter(c -> c.worker().startsWith("silent-"))
        .map(c -> c.verdict().health())
        .distinct()
        .toList();
  }

  @Test
  void withMostWorkersSilentAtOnceNoneGoesOfflineAndNoVmIsFailedOver() {
    HealthSettings settings = HealthSettings.defaults(); // disruption threshold 55%

    TermPlan some = fleetWithSilent(20, 11, settings);
    assertEquals(11, some.failovers().size(), "11 of 20 silent (55%, not more): their VMs move");
    assertEquals(List.of(WorkerHealth.OFFLINE), healthOfSilent(some));

    TermPlan most = fleetWithSilent(20, 12, settings);
    assertEquals(
        List.of(), most.failovers(), "12 of 20 silent (60%): taken for the controller's fault");
    assertEquals(List.of(WorkerHealth.LOST), healthOfSilent(most));
    String why = most.healthChanges().get(0).verdict().message();
    assertTrue(
        why.startsWith(
            "held lost, not offline: 12 of 20 workers are silent at once (more than 55%)"),
        why);
    assertEquals(
        List.of(), most.reconciliation().transitions(), "their tasks are not given up either");

    assertEquals(
        6,
        fleetWithSilent(9, 6, settings).failovers().size(),
        "in a cluster under "
            + Disruption.MIN_WORKERS
            + " workers most failing together may well be real");
    HealthSettings never =
        new HealthSettings(
            settings.lostAfter(),
            settings.offlineAfter(),
            settings.flakyCooldown(),
            settings.flakyAfterErrors(),
            settings.probeBackoffCap(),
            settings.flakyAfterTaskFailures(),
            settings.taskFailureWindow(),
            settings.removeOfflineAfter(),
            settings.probeInterval(),
            100);
    assertEquals(
        12, fleetWithSilent(20, 12, never).failovers().size(), "a threshold of 100%: never held");
  }

  @Test
  void aWorkerAlreadyOfflineStaysSoWhileFailoverIsHeld() {
    HealthSettings settings = HealthSettings.defaults();
    Instant lastSeen = T.minus(settings.lostAfter()).minus(settings.offlineAfter()).minusSeconds(1);
    List<WorkerSnapshot> fleet = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      WorkerHealth was =
          i == 0 ? WorkerHealth.OFFLINE : i < 7 ? WorkerHealth.LOST : WorkerHealth.READY;
      String name = "w" + i;
      fleet.add(was == WorkerHealth.READY ? worker(name, 8) : silentWorker(name, was, lastSeen));
    }
    TermPlan p =
        TermPlanner.plan(
            T,
            null,
            SchedulerProfile.OPTIMIZE_UTILIZATION,
            settings,
            fleet,
            List.of(),
            List.of(),
            Map.of(),
            Rebalancing.OFF,
            null);
    Map<String, WorkerHealth> changed = new java.util.HashMap<>();
    p.healthChanges().forEach(c -> changed.put(c.worker(), c.verdict().health()));
    assertEquals(
        WorkerHealth.OFFLINE,
        changed.getOrDefault("w0", WorkerHealth.OFFLINE),
        "offline before the disruption: nothing to hold back, its VMs moved then");
    assertEquals(WorkerHealth.LOST, changed.get("w1"), "7 of 10 silent: held lost");
  }

  private static TermPlan planAt(
      Instant now, Instant listeningSince, HealthSettings settings, WorkerSnapshot w) {
    return TermPlanner.plan(
        now,
        listeningSince,
        SchedulerProfile.OPTIMIZE_UTILIZATION,
        settings,
        List.of(w),
        List.of(),
        List.of(),
        Map.of(),
        Rebalancing.OFF,
        null);
  }

  @Test
  void aWorkerOfflineLongerThanRemoveOfflineAfterIsRemovedIfStillSilent() {
    HealthSettings settings =
        HealthSettings.defaults(); // lost 30 s, offline 3 min later, removed 24 h after that
    Instant lastSeen = T;
    Candidate c = Fixtures.health(Fixtures.ready("gone", 4), WorkerHealth.OFFLINE);
    WorkerSnapshot w =
        new WorkerSnapshot(
            c,
            new WorkerProbeState(
                "gone", WorkerHealth.OFFLINE, lastSeen, lastSeen, false, 9, "refused", null),
            "offline");
    Instant due = lastSeen.plusSeconds(30 + 180).plus(java.time.Duration.ofHours(24));
    TermPlan before = planAt(due.minusSeconds(1), null, settings, w);
    assertEquals(List.of(), before.removals());
    assertEquals(due, before.nextDeadline(), "the term wakes for it");
    assertEquals(
        List.of(new TermPlan.WorkerRemoval("gone", lastSeen)),
        planAt(due, null, settings, w).removals(),
        "with the last heartbeat it was judged on: one heard from meanwhile stays");

    Instant back = lastSeen.plus(java.time.Duration.ofHours(2)); // the scheduler was down two hours
    assertEquals(
        List.of(),
        planAt(due, back, settings, w).removals(),
        "silence counts from the scheduler's return");
    assertEquals(
        1, planAt(due.plus(java.time.Duration.ofHours(2)), back, settings, w).removals().size());

    HealthSettings never =
        new HealthSettings(
            settings.lostAfter(),
            settings.offlineAfter(),
            settings.flakyCooldown(),
            settings.flakyAfterErrors(),
            settings.probeBackoffCap(),
            5,
            java.time.Duration.ofMinutes(10),
            java.time.Duration.ZERO);
    assertEquals(
        List.of(),
        planAt(due.plus(java.time.Duration.ofDays(365)), null, never, w).removals(),
        "0: never");
  }
}
