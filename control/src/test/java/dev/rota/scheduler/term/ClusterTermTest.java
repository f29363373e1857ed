package dev.rota.scheduler.term;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.scheduling.ActionRetries;
import dev.rota.scheduler.ClusterActivitiesImpl;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmEventRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.VmTemplate;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.Histories;
import dev.rota.workflows.RotaWorkflows;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.cluster.ClusterState;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.ClusterWorkflowImpl;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vm.VmWorkflow;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cluster workflow with the real observe, commit and apply activities on H2, against a fake
 * cluster of agents, in skipped time. Settings: a 5 s interval, lost after 30 s, offline 3 min
 * later, flaky after 3 failed probes for a 1 min cool-down, offline workers removed 10 min later,
 * 300 ms per agent call.
 */
@MicronautTest(rebuildContext = true, transactional = false)
@Property(name = "rota.scheduler.interval", value = "5s")
@Property(name = "rota.secrets.key", value = "q2Jq0W8s5aTt4Yk3t9m0v9m8bqfQy3m8l2b1n0c9d8E=")
// These scenarios count terms at the interval; quiet-cluster stretching is tested in
// ClusterWorkflowTest.
@Property(name = "rota.scheduler.idle-interval", value = "5s")
@Property(name = "rota.workers.flaky-cooldown", value = "1m")
@Property(name = "rota.workers.remove-offline-after", value = "10m")
@Property(name = "rota.agents.timeout", value = "300ms")
// The fake agents report nothing themselves (the real ones push each change): every term probes
// them.
@Property(name = "rota.workers.probe-interval", value = "0s")
@Property(name = FailingNotifier.ENABLED, value = "true")
class ClusterTermTest {
  @Inject TestWorkflowEnvironment env;
  @Inject FakeAgents agents;
  @Inject WorkerRepository workers;
  @Inject VmRepository vms;
  @Inject VmEventRepository events;
  @Inject Clock clock;
  @Inject dev.rota.store.ClusterStatusRepository status;
  @Inject FailingNotifier notifier;
  @Inject VmTaskRepository tasks;
  @Inject dev.rota.store.OutboxRepository outbox;
  @Inject dev.rota.store.AgentTaskRepository agentTasks;
  @Inject dev.rota.store.VmSetRepository sets;
  @Inject dev.rota.store.ClusterSettingsRepository clusterSettings;
  @Inject dev.rota.store.WorkerImages workerImages;
  @Inject dev.rota.store.SecretRepository secrets;
  @Inject dev.rota.store.SecretBox box;
  @Inject dev.rota.control.VmActivitiesImpl vmActivities;

  private ClusterWorkflow startCluster(WorkflowClient client) {
    ClusterWorkflow cluster =
        client.newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.startOptions().build());
    WorkflowClient.start(cluster::run, ClusterState.initial());
    return cluster;
  }

  private void worker(String name, long cpu) {
    worker(name, cpu, 65536L);
  }

  private void worker(String name, long cpu, long memory) {
    workers.save(
        WorkerRow.registered(
            name,
            FakeAgents.endpoint(name),
            Map.of("cpu", cpu, "memory", memory),
            Map.of(),
            List.of("process"),
            null,
            "not-ready",
            "new",
            clock.instant()));
  }

  /**
   * A VM as the API submits it: its row, then its workflow, which records its lifecycle from the
   * task events.
   */
  private void vm(String name, long cpu, String restartPolicy) {
    vmRowOnly(name, cpu, restartPolicy);
    startVmWorkflow(name);
  }

  /** Only the row: for scenarios about the scheduler alone, whose news then waits in the outbox. */
  private void vmRowOnly(String name, long cpu, String restartPolicy) {
    vmRowOnly(name, cpu, restartPolicy, dev.rota.core.model.Priority.DEFAULT);
  }

  private void vmRowOnly(String name, long cpu, String restartPolicy, int priority) {
    vms.save(
        VmRow.submitted(
            name,
            vms.nextSeq(),
            dev.rota.store.StoreFixtures.spec(
                List.of("sleep", "600"),
                Map.of("cpu", cpu, "memory", 512L),
                restartPolicy,
                priority,
                List.of()),
            "waiting for the scheduler",
            clock.instant()));
  }

  /**
   * A set's row and its replicas (1 cpu each) as its workflow makes them, each with its workflow.
   */
  private void set(String name, int replicas, String spread, int maxUnavailable) {
    VmTemplate template =
        VmTemplate.builder("process")
            .command(List.of("sleep", "600"))
            .resources(Map.of("cpu", 1L, "memory", 512L))
            .restartPolicy("Never")
            .build();
    sets.save(
        VmSetRow.created(
            name, sets.nextSeq(), replicas, template, spread, maxUnavailable, clock.instant()));
    for (int i = 0; i < replicas; i++) {
      vms.save(
          VmRow.replica(
              name + "-" + i,
              vms.nextSeq(),
              template,
              new dev.rota.store.VmSetMembership(name, i, 1),
              "waiting for the scheduler",
              clock.instant()));
      startVmWorkflow(name + "-" + i);
    }
  }

  /** The worker the scheduler placed the VM's current task on, or null. */
  private String placedOn(String vm) {
    VmRow row = vmRow(vm);
    return tasks
        .findById(VmTaskRow.id(row.seq(), vm + "." + row.state().restartCount()))
        .map(VmTaskRow::worker)
        .orElse(null);
  }

  private String health(String worker) {
    return workers.findById(worker).orElseThrow().health();
  }

  private VmRow vmRow(String name) {
    return vms.findById(name).orElseThrow();
  }

  /**
   * The VM's row once its workflow has recorded what it heard: the lifecycle is written by the VM's
   * workflow after the term that observed it, so step through skipped time a little at a time.
   * While an activity runs the test server does not skip, and a step takes its 100 ms in real time:
   * 300 steps are patience for a busy machine (it once ran out at 100, with a second build beside
   * it).
   */
  private VmRow awaitVm(String name, java.util.function.Predicate<VmRow> condition, String what) {
    VmRow row = vmRow(name);
    for (int step = 0; !condition.test(row) && step < 300; step++) {
      env.sleep(Duration.ofMillis(100));
      row = vmRow(name);
    }
    assertTrue(condition.test(row), name + " " + what + ": " + row);
    return row;
  }

  private VmRow awaitStatus(String name, String status) {
    return awaitVm(name, v -> status.equals(v.state().status()), status);
  }

  private void sleepUntil(Instant t) {
    Duration d = Duration.between(clock.instant(), t);
    if (!d.isNegative()) {
      env.sleep(d);
    }
  }

  /**
   * The first completed result of an activity type, once there is one. A term takes real time
   * (agent calls, the database) while test time runs on, more of it on a slower machine: step
   * through skipped time, a little at a time, rather than assume one second is always enough.
   */
  private String awaitFirstResultOf(String activityType) {
    String result = completedResultOf(activityType);
    for (int step = 0; result == null && step < 600; step++) {
      env.sleep(Duration.ofMillis(100));
      result = completedResultOf(activityType);
    }
    assertNotNull(result, "a " + activityType + " completed");
    return result;
  }

  /** The JSON result of the first completed activity of a type, or null while there is none. */
  private String completedResultOf(String activityType) {
    Map<Long, String> types = new java.util.HashMap<>();
    for (HistoryEvent e :
        env.getWorkflowClient().fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents()) {
      if (e.hasActivityTaskScheduledEventAttributes()) {
        types.put(
            e.getEventId(),
            e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      } else if (e.hasActivityTaskCompletedEventAttributes()) {
        var done = e.getActivityTaskCompletedEventAttributes();
        if (activityType.equals(types.get(done.getScheduledEventId()))) {
          return done.getResult().getPayloads(0).getData().toStringUtf8();
        }
      }
    }
    return null;
  }

  private long signals(String workflowId) {
    return env.getWorkflowClient().fetchHistory(workflowId).getEvents().stream()
        .filter(
            e ->
                e.getEventType()
                    == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
        .count();
  }

  private List<String> eventTypes(String vm) {
    return events.page(vm, 0, 100).stream().map(VmEventRow::type).toList();
  }

  @Test
  void pendingVmsArePlacedInTheFirstTermTheirTasksStartedAndSeenRunning() throws Exception {
    worker("w1", 4);
    worker("w2", 4);
    vm("a", 1, "Never");
    vm("b", 1, "Never");
    vm("too-big", 16, "Never");
    ClusterWorkflow cluster = startCluster(env.getWorkflowClient());
    String first = awaitFirstResultOf("TermAndApply");

    assertTrue(
        first.contains("\"placed\":2"),
        "not-ready workers answered, turned ready and took VMs in one term");
    assertTrue(first.contains("\"started\":2"), "and started both in the same activity: " + first);
    assertEquals("ready", health("w1"));
    assertEquals("w1", placedOn("a"), "packed onto the first worker by name");
    assertEquals("w1", placedOn("b"));
    assertEquals(1, agents.starts("w1", "a.0"));
    assertEquals(
        "fits no worker of the cluster: needs cpu 16; the largest worker that could take it has 4 in all",
        vmRow("too-big").notes().pendingReason());
    assertTrue(vmRow("too-big").notes().fitsNowhere());

    env.sleep(Duration.ofSeconds(6));
    awaitStatus("a", "running");
    assertEquals(List.of("scheduled", "started"), eventTypes("a"));
    assertEquals(
        1,
        signals(VmWorkflow.workflowId("a")),
        "the placement of a task started at once goes with the news of its start, in one signal");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(),
        ClusterWorkflow.WORKFLOW_ID,
        ClusterWorkflowImpl.class,
        "cluster-term-applies");
  }

  /**
   * A term whose host froze between its agents' answers and its writes (SIGSTOP, a long GC pause)
   * for longer than the heartbeat timeout may have been given to another host meanwhile: woken, it
   * writes nothing of what it read. The pause here is the clock moved on 15 s inside the probe,
   * whose answer lacks the running task (read before the pause); the term stops before storing it,
   * its next attempt asks the agent again, and the VM runs on, never failed as vanished.
   */
  @Test
  void aTermWokenFromAPausePastTheHeartbeatTimeoutWritesNothingItRead() {
    worker("w1", 4);
    vm("steady", 1, "Never");
    startCluster(env.getWorkflowClient());
    awaitStatus("steady", "running");
    java.util.concurrent.atomic.AtomicBoolean paused =
        new java.util.concurrent.atomic.AtomicBoolean();
    agents.staleNextProbe(
        "w1",
        java.util.Set.of("steady.0"),
        () -> {
          ((dev.rota.testing.TestClock) clock).advance(Duration.ofSeconds(15));
          paused.set(true);
        });
    for (int step = 0; !paused.get() && step < 300; step++) {
      env.sleep(Duration.ofMillis(100));
    }
    assertTrue(paused.get(), "a term asked the agent and froze");
    long before = status.findById(ClusterWorkflow.WORKFLOW_ID).orElseThrow().term();
    for (int step = 0;
        status.findById(ClusterWorkflow.WORKFLOW_ID).orElseThrow().term() < before + 3
            && step < 300;
        step++) {
      env.sleep(Duration.ofMillis(100));
    }
    VmRow row = vmRow("steady");
    assertEquals("running", row.state().status(), "terms went on, and none failed it: " + row);
    assertEquals(0, row.state().restartCount());
    assertEquals(List.of("scheduled", "started"), eventTypes("steady"));
    assertEquals(1, agents.starts("w1", "steady.0"), "never started again");
  }

  @Test
  void aVmGoesToTheWorkerWhoseAgentHoldsItsImageAndItsEventSaysSo() {
    String image = "ghcr.io/acme/build:7";
    Instant used = clock.instant().minusSeconds(3600);
    worker("w1", 4);
    worker("w2", 4);
    workerImages.held("w2", Map.of(image, used, "ghcr.io/acme/other:1", clock.instant()));
    vm("plain", 1, "Never");
    vms.save(
        VmRow.submitted(
            "imaged",
            vms.nextSeq(),
            VmTemplate.builder("process")
                .image(image)
                .command(List.of("sleep", "600"))
                .resources(Map.of("cpu", 1L, "memory", 512L))
                .restartPolicy("Never")
                .build(),
            "waiting for the scheduler",
            clock.instant()));
    startVmWorkflow("imaged");
    startCluster(env.getWorkflowClient());
    awaitFirstResultOf("TermAndApply");

    assertEquals("w1", placedOn("plain"), "packed onto the first worker by name");
    assertEquals("w2", placedOn("imaged"), "the worker holding its image, though w1 is fuller");
    assertEquals(
        image, agents.spec("w2", "imaged.0").image(), "the agent is told which image to run");
    VmEventRow scheduled = events.page("imaged", 0, 100).get(0);
    assertEquals(
        "scheduled on worker w2 as task imaged.0 (holds image "
            + image
            + ", last used "
            + used
            + ")",
        scheduled.message());
  }

  @Test
  void aYoungerVmOfHigherPriorityTakesTheLastRoomFromAnOlderOne() {
    worker("w1", 1);
    vm("nightly", 1, "Never");
    vmRowOnly("release", 1, "Never", 80);
    startVmWorkflow("release");
    startCluster(env.getWorkflowClient());
    awaitFirstResultOf("TermAndApply");
    assertEquals("w1", placedOn("release"), "priority 80 goes before 50, whatever their ages");
    assertEquals(null, placedOn("nightly"));
    assertEquals(
        "needs cpu 1; the most free on a matching worker is 0",
        vmRow("nightly").notes().pendingReason());
  }

  @Test
  void aSetsReplicasAreSpreadAsItsRowSaysAndTheOneThatCannotBeWaitsWithTheReason() {
    worker("w1", 4);
    worker("w2", 4);
    set("web", 3, "distinct-workers", 1);
    startCluster(env.getWorkflowClient());
    String first = awaitFirstResultOf("TermAndApply");
    assertTrue(first.contains("\"placed\":2"), first);
    assertEquals("w1", placedOn("web-0"), "packing would have put all three on w1");
    assertEquals("w2", placedOn("web-1"));
    assertEquals(null, placedOn("web-2"));
    assertEquals(
        "distinct-workers: every worker with room for it already runs a replica of set web",
        vmRow("web-2").notes().pendingReason());
  }

  @Test
  void aPausedClusterPlacesNothingSayingWhyAndPlacesAtOnceWhenResumed() {
    var settings = clusterSettings.findById(dev.rota.store.ClusterSettingsRow.ID).orElseThrow();
    settings =
        clusterSettings.update(settings.withPause(true, false, "maintenance", clock.instant()));
    try {
      worker("w1", 4);
      vm("held", 1, "Never");
      ClusterWorkflow cluster = startCluster(env.getWorkflowClient());
      String first = awaitFirstResultOf("TermAndApply");
      assertTrue(first.contains("\"placed\":0"), first);
      assertEquals(
          "scheduling is paused for the cluster: maintenance",
          vmRow("held").notes().pendingReason());
      assertTrue(
          first.contains("pending held: scheduling is paused for the cluster: maintenance"),
          "the term's summary in the Temporal UI says why: " + first);

      clusterSettings.update(settings.withPause(false, false, null, clock.instant()));
      cluster.wake("scheduling resumed");
      assertEquals("w1", awaitStatus("held", "running").state().worker());
    } finally {
      var now = clusterSettings.findById(dev.rota.store.ClusterSettingsRow.ID).orElseThrow();
      clusterSettings.update(now.withPause(false, false, null, clock.instant()));
    }
  }

  @Test
  void withPreemptionOnAVmOfHigherPriorityEvictsALowerOneWhichWaitsForRoomAgain() {
    var settings = clusterSettings.findById(dev.rota.store.ClusterSettingsRow.ID).orElseThrow();
    clusterSettings.update(
        settings.withSettings(
            settings.schedulerProfile(),
            settings.defaultMaxRunSeconds(),
            settings.instanceSizes(),
            true));
    try {
      worker("w1", 1);
      vmRowOnly("nightly", 1, "Always", 20);
      startVmWorkflow("nightly");
      ClusterWorkflow cluster = startCluster(env.getWorkflowClient());
      awaitStatus("nightly", "running");

      vmRowOnly("release", 1, "Never", 80);
      startVmWorkflow("release");
      cluster.wake("release submitted");
      assertEquals("w1", awaitStatus("release", "running").state().worker());
      VmRow nightly = awaitStatus("nightly", "pending");
      assertEquals(1, nightly.state().restartCount(), "a new generation, to be placed");
      assertEquals(
          "needs cpu 1; the most free on a matching worker is 0", nightly.notes().pendingReason());
      assertTrue(eventTypes("nightly").contains("preempted"), eventTypes("nightly").toString());
      assertTrue(eventTypes("release").contains("preempting"), eventTypes("release").toString());
      assertEquals(
          "evicting nightly (priority 20) from worker w1 to make room (priority 80)",
          events.page("release", 0, 100).stream()
              .filter(e -> e.type().equals("preempting"))
              .findFirst()
              .orElseThrow()
              .message());
      assertEquals(1, agents.starts("w1", "release.0"));
      assertEquals(0, agents.starts("w1", "nightly.1"), "the lower waits: release holds its room");
    } finally {
      var now = clusterSettings.findById(dev.rota.store.ClusterSettingsRow.ID).orElseThrow();
      clusterSettings.update(
          now.withSettings(
              now.schedulerProfile(), now.defaultMaxRunSeconds(), now.instanceSizes(), false));
    }
  }

  @Test
  void aWorkerJoiningTakesItsShareOfASetUnderDistributeLoadAndEveryReplicaRunsThroughout() {
    var profile = clusterSettings.findById(dev.rota.store.ClusterSettingsRow.ID).orElseThrow();
    clusterSettings.update(
        profile.withSettings(
            "distribute-load",
            profile.defaultMaxRunSeconds(),
            profile.instanceSizes(),
            profile.preemption()));
    worker("w1", 8);
    set("web", 4, "none", 2);
    startCluster(env.getWorkflowClient());
    for (int i = 0; i < 4; i++) {
      assertEquals("w1", awaitStatus("web-" + i, "running").state().worker());
    }

    worker("w2", 8);
    VmRow moved =
        awaitVm(
            "web-3",
            v -> "w2".equals(v.state().worker()) && "running".equals(v.state().status()),
            "moved to w2");
    VmRow alsoMoved =
        awaitVm(
            "web-2",
            v -> "w2".equals(v.state().worker()) && "running".equals(v.state().status()),
            "moved to w2");
    assertEquals(1, moved.state().restartCount(), "a move is the next generation");
    assertEquals(1, alsoMoved.state().restartCount());
    for (int i = 0; i < 2; i++) {
      VmRow stayed = vmRow("web-" + i);
      assertEquals("w1", stayed.state().worker(), "two stay: 2 and 2 is balanced");
      assertEquals(0, stayed.state().restartCount(), "and were not touched");
    }
    for (String vm : List.of("web-2", "web-3")) {
      awaitVm(vm, v -> v.notes().oldCopyOn() == null, "its move done");
      assertTrue(
          !agents.tasks("w1").contains(vm + ".0"), vm + ": done only once its old copy is removed");
    }
    assertEquals(List.of("web-0.0", "web-1.0"), agents.tasks("w1").stream().sorted().toList());
    assertEquals(List.of("web-2.1", "web-3.1"), agents.tasks("w2").stream().sorted().toList());
    assertEquals(
        List.of("scheduled", "started", "moving", "started", "moved"),
        eventTypes("web-3"),
        "never down on the way");
    assertTrue(
        vms.findAll().stream()
            .noneMatch(v -> v.notes().movingFrom() != null || v.notes().oldCopyOn() != null),
        "no move left under way");
  }

  @Test
  void aDrainMovesWhatRestartsStartingItElsewhereFirstThenStopsTheRestAtTheDeadline() {
    worker("w1", 8);
    vm("svc", 1, "Always");
    vm("once", 1, "Never");
    startCluster(env.getWorkflowClient());
    assertEquals("w1", awaitStatus("svc", "running").state().worker());
    assertEquals("w1", awaitStatus("once", "running").state().worker());
    worker("w2", 8);
    awaitVm("svc", v -> "ready".equals(health("w2")), "w2 ready");

    Instant deadline = clock.instant().plus(Duration.ofMinutes(2));
    workers.update(workers.findById("w1").orElseThrow().withDrain(deadline, clock.instant()));
    VmRow moved =
        awaitVm(
            "svc",
            v -> "w2".equals(v.state().worker()) && "running".equals(v.state().status()),
            "moved to w2");
    assertEquals(1, moved.state().restartCount(), "a move is the next generation");
    awaitVm("svc", v -> v.notes().oldCopyOn() == null, "its move done");
    assertTrue(!agents.tasks("w1").contains("svc.0"), "done only once its old copy is removed");
    assertEquals(
        List.of("scheduled", "started", "moving", "started", "moved"),
        eventTypes("svc"),
        "never down on the way");
    assertTrue(
        events
            .page("svc", 0, 100)
            .get(2)
            .message()
            .contains("worker w1 is draining, deadline " + deadline));
    awaitVm(
        "once",
        v ->
            workers.findById("w1").orElseThrow().drainProgress() != null
                && workers.findById("w1").orElseThrow().drainProgress().contains("1 VM left"),
        "progress on w1");
    assertEquals(
        "draining until "
            + deadline
            + ": 1 VM left; 1 without a restart policy, stopped at the deadline",
        workers.findById("w1").orElseThrow().drainProgress());
    assertEquals(
        "running",
        vmRow("once").state().status(),
        "nothing would start it again: it stays until the deadline");
    assertEquals("w1", vmRow("once").state().worker());

    sleepUntil(deadline);
    VmRow once = awaitStatus("once", "stopped");
    assertEquals(
        "stopped: worker w1 was drained (restartPolicy Never)", once.state().statusMessage());
    assertTrue(agents.tasks("w1").isEmpty(), "nothing left on w1: " + agents.tasks("w1"));
    assertEquals(
        List.of("scheduled", "started", "drained", "stopping", "stopped"), eventTypes("once"));
    awaitVm(
        "once",
        v -> "drained: no VMs left".equals(workers.findById("w1").orElseThrow().drainProgress()),
        "w1 drained");
    assertEquals("w2", placedOn("svc"));
    assertTrue(
        workers.findById("w1").orElseThrow().schedulingPaused(),
        "a drained worker stays out of placement until resumed");
  }

  private long outboxEvent(VmRow vm, String taskId, String worker, String event) {
    long id = outbox.nextId();
    outbox.addEvent(
        id,
        worker,
        taskId,
        vm.name(),
        vm.seq(),
        event,
        null,
        event + " on " + worker,
        clock.instant(),
        null);
    return id;
  }

  @Test
  void aVmsEarlierEventsStillInTheOutboxAreToldBeforeALaterOneDeliveredAhead() {
    vm("m", 1, "Always"); // its row and workflow; no scheduler runs
    VmRow row = vmRow("m");
    outboxEvent(row, "m.0", "w1", "placed");
    long placed = outbox.after(0, 10).get(0).id();
    long started = outboxEvent(row, "m.0", "w1", "started");
    List<Long> told =
        notifier.notify(outbox.after(started - 1, 1).get(0)); // the placement goes ahead of it
    awaitStatus("m", "running");
    assertEquals(List.of(placed, started), told, "both told, for the caller to take out at once");
    outbox.doneAll(told);

    // A move, as a term writes it; then an agent's report of the new copy's start overtakes the
    // move's news (the term sends that, and the start, at once).
    assertEquals(1, vms.startMove("m", row.seq(), 0, "w1", "moving from worker w1 to w2"));
    long moved = outboxEvent(row, "m.1", "w2", "moved");
    long startedThere = outboxEvent(row, "m.1", "w2", "started");
    told = notifier.notify(outbox.after(startedThere - 1, 1).get(0));
    VmRow after = awaitVm("m", v -> "w2".equals(v.state().worker()), "on w2");
    assertEquals("running", after.state().status());
    assertEquals(
        1, after.state().restartCount(), "the move, then its new copy's start: nothing lost");
    assertEquals(List.of(moved, startedThere), told);
    assertEquals(2, outbox.after(0, 10).size(), "the notifier takes nothing out: its caller does");
  }

  @Test
  void aTermAppliesEveryActionItQueuedNotJustOneBatch() {
    worker("big", 2000, 2000 * 512L);
    int count = ActionApplier.BATCH + 100;
    for (int i = 0; i < count; i++) {
      vmRowOnly("many-" + i, 1, "Never");
    }
    startCluster(env.getWorkflowClient());
    String first = awaitFirstResultOf("TermAndApply");
    assertTrue(first.contains("\"placed\":" + count), first);
    assertTrue(
        first.contains("\"started\":" + count),
        "every task started in the term that placed it: " + first);
    assertEquals(count, agents.tasks("big").size());
  }

  @Test
  void aWorkerThatStopsHeartbeatingGoesLostThenOfflineOnTimeAndItsVmsFail() {
    worker("w1", 4);
    vm("a", 1, "Never");
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(6));
    awaitStatus("a", "running");

    agents.stopHeartbeats("w1");
    env.sleep(Duration.ofSeconds(1));
    Instant lastSeen = workers.findById("w1").orElseThrow().lastSeen();

    sleepUntil(lastSeen.plusSeconds(29));
    assertEquals("ready", health("w1"), "not lost before lost-after");
    sleepUntil(lastSeen.plusSeconds(31));
    assertEquals("lost", health("w1"), "lost at lost-after (the term wakes for the deadline)");
    assertEquals("running", vmRow("a").state().status(), "a lost worker keeps its VMs");

    sleepUntil(lastSeen.plusSeconds(30 + 180 - 1));
    assertEquals("lost", health("w1"));
    sleepUntil(lastSeen.plusSeconds(30 + 180 + 1));
    assertEquals("offline", health("w1"), "offline after offline-after more");
    VmRow a = awaitStatus("a", "failed");
    assertEquals("failed", a.state().status());
    assertEquals("worker w1 went offline", a.state().statusMessage());

    sleepUntil(lastSeen.plusSeconds(30 + 180 + 600 - 1));
    assertTrue(workers.findById("w1").isPresent(), "kept until offline for remove-offline-after");
    sleepUntil(lastSeen.plusSeconds(30 + 180 + 600 + 1));
    awaitVm("a", v -> workers.findById("w1").isEmpty(), "w1 removed (the term wakes for it)");
    assertTrue(
        agentTasks.findByWorkerInList(List.of("w1")).isEmpty(), "what its agent said went with it");
    assertEquals(
        "failed", vmRow("a").state().status(), "its VM stays as it was: failed, naming the worker");
  }

  @Test
  void
      afterAnOutageLongerThanLostAndOfflineTheFirstTermsBackFailNothingAndSilenceCountsFromTheReturn() {
    worker("w1", 4);
    worker("w2", 4);
    vm("a", 3, "Never");
    vm("b", 3, "Never");
    ClusterWorkflow cluster = startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(6));
    awaitStatus("a", "running");
    awaitStatus("b", "running");
    String silentWorker = vmRow("b").state().worker();
    String otherWorker = vmRow("a").state().worker();

    // Every host down for 5 minutes, longer than lost-after plus offline-after: no term runs, and
    // no heartbeat can arrive. One agent will not heartbeat again.
    io.temporal.client.WorkflowStub.fromTyped(cluster).terminate("every host down");
    agents.stopHeartbeats(silentWorker);
    env.sleep(Duration.ofMinutes(5));
    Instant back = clock.instant();
    startCluster(env.getWorkflowClient());
    awaitTermSince(back);
    assertEquals("ready", health(otherWorker));
    assertEquals(
        "ready",
        health(silentWorker),
        "judged on the moments since the scheduler came back, not the outage");
    assertEquals("running", vmRow("a").state().status());
    assertEquals(
        "running", vmRow("b").state().status(), "no VM fails for an outage of the control plane");

    sleepUntil(back.plusSeconds(29));
    assertEquals("ready", health(silentWorker));
    sleepUntil(back.plusSeconds(31));
    assertEquals(
        "lost", health(silentWorker), "lost once it has been silent lost-after since the return");
    assertTrue(
        workers
            .findById(silentWorker)
            .orElseThrow()
            .healthMessage()
            .contains("since the scheduler came back"));
    sleepUntil(back.plusSeconds(30 + 180 + 1));
    assertEquals("offline", health(silentWorker));
    awaitStatus("b", "failed");
    assertEquals("ready", health(otherWorker));
    assertEquals("running", vmRow("a").state().status());
  }

  private void startVmWorkflow(String vm) {
    VmWorkflow workflow =
        env.getWorkflowClient()
            .newWorkflowStub(
                VmWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(VmWorkflow.workflowId(vm))
                    .setTaskQueue(TaskQueues.CONTROL)
                    .build());
    WorkflowClient.start(workflow::run, vm, null, null);
  }

  /**
   * Steps through skipped time until a term that started at or after {@code t} has been recorded.
   */
  private void awaitTermSince(Instant t) {
    for (int step = 0; step < 600; step++) {
      var row = status.findById(ClusterWorkflow.WORKFLOW_ID);
      if (row.isPresent()
          && row.get().lastTermAt() != null
          && !row.get().lastTermAt().isBefore(t)) {
        return;
      }
      env.sleep(Duration.ofMillis(100));
    }
    throw new AssertionError("no term since " + t);
  }

  @Test
  void aRefusedStartFailsTheVmAndItsWorkflowHearsItThroughTheOutboxEvenWhenTheSignalFailsOnce() {
    worker("w1", 4);
    // The first start fails for a while (the placement's notification goes out meanwhile), then the
    // agent refuses it for good, and the first signal of that fails.
    agents.set("w1", FakeAgents.Mode.NO_STARTS);
    vm("a", 1, "OnFailure");
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(2));
    awaitStatus("a", "scheduled");
    notifier.failNext("a", 1);
    agents.set("w1", FakeAgents.Mode.REFUSES_STARTS);
    env.sleep(Duration.ofSeconds(3));
    assertTrue(
        eventTypes("a").contains("failed"), "the refused start failed the VM: " + eventTypes("a"));
    awaitVm(
        "a", v -> v.state().statusMessage().contains("refused task a.0"), "told of the refusal");
    assertEquals(1, notifier.failed("a"), "the first signal of it failed");

    agents.set("w1", FakeAgents.Mode.UP);
    env.sleep(Duration.ofSeconds(30)); // the restart delay is 15 s
    assertTrue(
        vmRow("a").state().restartCount() >= 1,
        "the workflow heard of the failure and restarted it: " + eventTypes("a"));
    awaitStatus("a", "running");
  }

  /** A VM with TOKEN from the secret {@code secret}, as the API stores it: the name alone. */
  private void vmWithSecret(String name, String secret) {
    VmTemplate t =
        VmTemplate.builder("process")
            .command(List.of("sleep", "600"))
            .env(Map.of("MODE", "ci"))
            .resources(Map.of("cpu", 1L, "memory", 512L))
            .restartPolicy("Never")
            .secrets(new dev.rota.agentapi.SecretRefs(Map.of("TOKEN", secret), null, null))
            .build();
    vms.save(VmRow.submitted(name, vms.nextSeq(), t, "waiting for the scheduler", clock.instant()));
    startVmWorkflow(name);
  }

  /**
   * A VM deleted before its workflow heard that its task was placed: the deletion removes the task
   * the scheduler placed all the same, so that nothing runs on in room the term counts as free.
   */
  @Test
  void aDeletionRemovesATaskPlacedThoughItsWorkflowHadNotHeardOfIt() {
    worker("w1", 4);
    vmRowOnly("unheard", 1, "Never");
    startCluster(env.getWorkflowClient());
    for (int step = 0; !agents.tasks("w1").contains("unheard.0") && step < 300; step++) {
      env.sleep(Duration.ofMillis(100));
    }
    assertTrue(
        agents.tasks("w1").contains("unheard.0"), "placed and started: " + agents.tasks("w1"));
    VmRow row = vmRow("unheard");
    vmActivities.deleteWithTasks(
        new VmActivities.Deletion(new VmActivities.VmRef("unheard", row.seq()), List.of()));
    assertTrue(
        !agents.tasks("w1").contains("unheard.0"),
        "removed though its workflow named no task: " + agents.tasks("w1"));
    assertTrue(vms.findById("unheard").isEmpty(), "and its rows gone");
  }

  @Test
  void anAgentGetsTheSecretsValueAtStartAndAVmWhoseSecretIsGoneFailsNamingIt() {
    worker("w1", 4);
    secrets.save(
        new dev.rota.store.SecretRow(
            "token",
            box.seal("token", "s3cret-value"),
            clock.instant(),
            clock.instant(),
            "default"));
    vmWithSecret("a", "token");
    vmWithSecret("b", "gone");
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(6));
    awaitStatus("a", "running");
    dev.rota.agentapi.TaskSpec sent = agents.spec("w1", "a.0");
    assertEquals(Map.of("MODE", "ci", "TOKEN", "s3cret-value"), sent.env(), "the value, sent");
    assertEquals(Map.of("TOKEN", "token"), sent.secrets().env(), "and which it is");
    assertEquals(Map.of("MODE", "ci"), vmRow("a").spec().env(), "the row keeps the name alone");
    VmRow b =
        awaitVm(
            "b",
            v -> v.state().statusMessage().contains("secret gone does not exist"),
            "failed, naming the secret");
    assertEquals("failed", b.state().status());
    assertEquals(0, agents.starts("w1", "b.0"), "nothing sent to its agent");
  }

  @Test
  void aVmWhoseWorkflowStartsLateTakesUpTheStartItsAgentReportedMeanwhile() {
    worker("w1", 4);
    vmRowOnly(
        "a", 1, "Never"); // as when a host dies between storing a VM and starting its workflow
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(6));
    assertEquals("w1", placedOn("a"), "placed and started by the scheduler");
    assertEquals(1, agents.starts("w1", "a.0"));
    VmRow reported = vmRow("a");
    assertEquals(
        "running",
        reported.state().status(),
        "its agent's word, in the read model before any workflow heard it");
    assertTrue(reported.state().taskEventId() > 0);

    startVmWorkflow("a"); // as the next host's start-up restores it
    env.sleep(Duration.ofSeconds(11));
    VmWorkflow workflow =
        env.getWorkflowClient().newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId("a"));
    for (int step = 0; !"running".equals(workflow.status()) && step < 300; step++) {
      env.sleep(Duration.ofMillis(100));
    }
    assertEquals("running", workflow.status(), "its workflow took the VM up as it stands");
    VmRow a = vmRow("a");
    assertEquals("running", a.state().status());
    assertEquals("w1", a.state().worker());
    assertEquals(reported.state().startedAt(), a.state().startedAt());
    assertEquals(
        reported.state().taskEventId(),
        a.state().taskEventId(),
        "the start it heard is the one reported");
  }

  @Test
  void anOnFailureVmWhoseWorkerGoesOfflineIsFailedOverToAnotherWorkerByTheTermThatSawIt() {
    worker("w1", 4);
    worker("w2", 2);
    vm("a", 1, "OnFailure");
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(6));
    assertEquals("w1", vmRow("a").state().worker(), "packed onto the fuller-by-name first worker");
    awaitStatus("a", "running");

    agents.stopHeartbeats("w1");
    agents.set("w1", FakeAgents.Mode.ERRORS);
    env.sleep(Duration.ofSeconds(30 + 180 + 5));
    assertEquals("offline", health("w1"));
    VmRow moved =
        awaitVm(
            "a",
            v -> "running".equals(v.state().status()) && v.state().restartCount() == 1,
            "running again");
    assertEquals("w2", moved.state().worker(), "placed on the worker that is still there");
    assertEquals(1, agents.starts("w2", "a.1"), "the new generation's task, started once");
    assertEquals(
        List.of("scheduled", "started", "failed-over", "started"),
        eventTypes("a"),
        "no failure, no restart delay, no requeue: the term that saw w1 go placed it elsewhere");
    assertTrue(
        tasks
            .findById(VmTaskRow.id(moved.seq(), "a.0"))
            .map(t -> t.state().equals("lost"))
            .orElse(true),
        "the old task's record says lost until it is forgotten");
  }

  @Test
  void aStartThatKeepsFailingGivesThePlacementBackAndTheWorkerIsAvoided() {
    worker("w1", 8);
    worker("w2", 4);
    agents.set("w1", FakeAgents.Mode.NO_STARTS);
    vm("a", 1, "Never");
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(20));
    VmRow a =
        awaitVm(
            "a",
            v -> "running".equals(v.state().status()) && "w2".equals(v.state().worker()),
            "running elsewhere");
    assertEquals("w2", a.state().worker(), "placed again, elsewhere");
    assertEquals("running", a.state().status());
    assertTrue(eventTypes("a").contains("start-failed"), eventTypes("a").toString());
    assertEquals("w1", a.notes().avoidWorker());
    assertEquals(0, agents.tasks("w1").size());
  }

  @Test
  void aWorkerThatFailsEveryStartIsCalledOnceALanePerPassAndAllItsVmsAreGivenBackAsSoonAsOne() {
    worker("w1", 64);
    worker("w2", 64);
    agents.set("w1", FakeAgents.Mode.NO_STARTS);
    int count = 20; // more than the lanes to one agent
    for (int i = 0; i < count; i++) {
      vm("v" + i, 1, "Never");
    }
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(20)); // as long as one VM's give-back takes
    for (int i = 0; i < count; i++) {
      VmRow v =
          awaitVm(
              "v" + i,
              r -> "running".equals(r.state().status()) && "w2".equals(r.state().worker()),
              "running elsewhere");
      assertEquals("w1", v.notes().avoidWorker());
    }
    assertTrue(
        agents.startCalls("w1") <= AgentCallPass.LANES_PER_AGENT * ActionRetries.START_ATTEMPTS,
        "after a failed call the rest of its lane count as tried, uncalled: "
            + agents.startCalls("w1")
            + " calls");
  }

  @Test
  void anAgentThatErrsTurnsFlakyThenRecoversAfterTheCooldown() {
    worker("w1", 4);
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(1));
    assertEquals("ready", health("w1"));

    agents.set("w1", FakeAgents.Mode.ERRORS);
    env.sleep(Duration.ofSeconds(11)); // two failed probes: tolerated
    assertEquals("ready", health("w1"));
    env.sleep(Duration.ofSeconds(5)); // the third
    WorkerRow flaky = workers.findById("w1").orElseThrow();
    assertEquals("flaky", flaky.health());
    assertTrue(flaky.healthMessage().contains("connection refused"), flaky.healthMessage());

    agents.set("w1", FakeAgents.Mode.UP);
    sleepUntil(flaky.flakyUntil().minusSeconds(2));
    assertEquals(
        "flaky", health("w1"), "the cool-down runs its course even though the agent is back");
    sleepUntil(flaky.flakyUntil().plusSeconds(6));
    assertEquals("ready", health("w1"), "probed again after the cool-down, and answering");
  }

  @Test
  void aWorkerWhoseTasksKeepFailingTurnsFlakyAndNewVmsGoElsewhere() {
    worker("w1", 8);
    worker("w2", 8);
    agents.set("w1", FakeAgents.Mode.TASKS_FAIL);
    for (int i = 0; i < 5; i++) {
      vm("f" + i, 1, "Never");
    }
    startCluster(env.getWorkflowClient());
    awaitFirstResultOf("TermAndApply");
    for (int i = 0; i < 5; i++) {
      assertEquals("w1", placedOn("f" + i), "packed onto the first worker by name");
    }
    for (int i = 0; i < 5; i++) {
      assertTrue(
          awaitStatus("f" + i, "failed").state().statusMessage().contains("image not found"));
    }
    awaitVm("f0", v -> "flaky".equals(health("w1")), "w1 flaky");
    WorkerRow w1 = workers.findById("w1").orElseThrow();
    assertTrue(
        w1.healthMessage().contains("tasks failed on it repeatedly (5 within 10 min)"),
        w1.healthMessage());
    assertEquals("ready", health("w2"));

    vm("after", 1, "Never");
    awaitVm("after", v -> placedOn("after") != null, "placed");
    assertEquals(
        "w2",
        placedOn("after"),
        "the flaky worker takes nothing new, though it sorts first and is fuller");
  }

  @Test
  void anAgentThatHangsDoesNotHoldUpTheOthers() {
    worker("w1", 4);
    worker("w2", 4);
    agents.set("w1", FakeAgents.Mode.HANGS);
    vm("a", 1, "Never");
    ClusterWorkflow cluster = startCluster(env.getWorkflowClient());
    // Long enough for the first term, whose observation waits out the hung agent's deadline; short
    // of the 5 s interval, so no second term.
    env.sleep(Duration.ofSeconds(3));

    String firstCommit = awaitFirstResultOf("TermAndApply");
    assertTrue(
        firstCommit.contains("\"placed\":1"), "the first term placed the VM: " + firstCommit);
    assertEquals("w2", placedOn("a"), "on the agent that answered");
    assertEquals("not-ready", health("w1"));
    assertTrue(
        workers.findById("w1").orElseThrow().lastProbeError().contains("no answer within 300 ms"));
  }

  @Test
  void tasksNobodyOwnsAreRemovedAndATaskThatExitsEndsItsVm() {
    worker("w1", 4);
    vm("a", 1, "Never");
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(6));
    agents.putByHand("w1", "stray.0");
    agents.putByHand("w1", "a.7");
    env.sleep(Duration.ofSeconds(5));
    assertEquals(
        List.of("a.0"), agents.tasks("w1"), "the stray task and the wrong generation are gone");
    assertEquals(
        List.of("stray.0"),
        agents.logsDiscarded("w1"),
        "no VM stray exists, so nothing of its task is kept; VM a's old generation's logs are");

    agents.exit("w1", "a.0", 3);
    env.sleep(Duration.ofSeconds(5));
    VmRow a = awaitStatus("a", "failed");
    assertEquals("failed", a.state().status());
    assertEquals(3, a.state().exitCode());
    assertEquals("task a.0 exited with code 3", a.state().statusMessage());
  }

  @Test
  void continuesAsNewUnderALongRunWithoutLosingPendingWork() {
    worker("w1", 1000);
    ClusterWorkflow cluster = startCluster(env.getWorkflowClient());
    String firstRun =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID)
            .describe()
            .getExecution()
            .getRunId();
    env.sleep(Duration.ofMinutes(30));
    String run =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID)
            .describe()
            .getExecution()
            .getRunId();
    assertNotEquals(firstRun, run, "continued as new");
    long terms = cluster.lastTerm().term();
    assertTrue(terms >= 100, "terms counted across runs: " + terms);

    vm("late", 1, "Never");
    env.sleep(Duration.ofSeconds(6));
    awaitVm("late", v -> "w1".equals(v.state().worker()), "placed after continue-as-new");
    int events =
        env.getWorkflowClient().fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents().size();
    assertTrue(events <= 2_100, "history bounded: " + events);
  }

  private long recordedTerm() {
    return status.findById(ClusterWorkflow.WORKFLOW_ID).orElseThrow().term();
  }

  @Test
  void historyStaysBoundedOverFourHundredTermsWithAHundredWorkers() {
    for (int i = 0; i < 100; i++) {
      worker(String.format("w%03d", i), 8);
    }
    for (int i = 0; i < 200; i++) {
      vm("v" + i, 1, "Never");
    }
    startCluster(env.getWorkflowClient());
    env.sleep(Duration.ofSeconds(5 * 400));
    // Each term's own run time is added to its 5 s wait, so a slow machine fits a few fewer terms
    // into 2,000 s of test time; go on term by term (skipped time, not waited) to the 400th.
    for (int extra = 0; extra < 50 && recordedTerm() < 400; extra++) {
      env.sleep(Duration.ofSeconds(5));
    }
    assertTrue(recordedTerm() >= 400, "terms: " + recordedTerm());
    io.temporal.common.WorkflowExecutionHistory history =
        env.getWorkflowClient().fetchHistory(ClusterWorkflow.WORKFLOW_ID);
    int events = history.getEvents().size();
    assertTrue(events <= 2_100, "the current run's history stays bounded: " + events);
    // A quiet term is about 11 events: 400 terms fill two runs of 2,000 and begin a third.
    assertTrue(runsBefore(history) >= 2, "runs before the current: " + runsBefore(history));
    assertEquals(200, vms.page(0, "running", null, null, 1000).size(), "and the work got done");
  }

  /** How many runs the scheduler continued as new from to reach this one. */
  private int runsBefore(io.temporal.common.WorkflowExecutionHistory history) {
    int runs = 0;
    String previous =
        history
            .getEvents()
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getContinuedExecutionRunId();
    while (!previous.isEmpty()) {
      runs++;
      previous =
          env.getWorkflowClient()
              .fetchHistory(ClusterWorkflow.WORKFLOW_ID, previous)
              .getEvents()
              .get(0)
              .getWorkflowExecutionStartedEventAttributes()
              .getContinuedExecutionRunId();
    }
    return runs;
  }

  @Test
  void twoHostsStartingTheSchedulerShareOneRunAndPlaceEachVmOnce(
      ClusterActivitiesImpl cluster, VmActivities vmActivities) {
    WorkerFactory secondHost = WorkerFactory.newInstance(env.getWorkflowClient());
    HeartbeatingAgents terms = new HeartbeatingAgents(cluster, agents, workers, clock);
    RotaWorkflows.registerControl(secondHost.newWorker(TaskQueues.CONTROL), terms, vmActivities);
    RotaWorkflows.registerScheduler(secondHost.newWorker(TaskQueues.SCHEDULER), terms);
    secondHost.start();
    try {
      worker("w1", 8);
      worker("w2", 8);
      for (int i = 0; i < 12; i++) {
        vm("v" + i, 1, "Never");
      }
      String run1 =
          io.temporal.client.WorkflowStub.fromTyped(startCluster(env.getWorkflowClient()))
              .getExecution()
              .getRunId();
      String run2 =
          io.temporal.client.WorkflowStub.fromTyped(startCluster(env.getWorkflowClient()))
              .getExecution()
              .getRunId();
      assertEquals(run1, run2, "one run, whichever host started it");
      env.sleep(Duration.ofSeconds(30));
      for (int i = 0; i < 12; i++) {
        VmRow v = awaitStatus("v" + i, "running");
        assertEquals("running", v.state().status(), v.name());
        assertEquals(
            1, agents.starts(v.state().worker(), "v" + i + ".0"), "started once: " + v.name());
        assertEquals(
            1,
            eventTypes(v.name()).stream().filter("scheduled"::equals).count(),
            "placed once: " + v.name());
      }
    } finally {
      secondHost.shutdownNow();
    }
  }
}
