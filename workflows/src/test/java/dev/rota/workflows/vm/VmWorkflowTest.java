package dev.rota.workflows.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.workflows.Histories;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.Functions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The VM lifecycle in skipped time, against a fake store that notes each call with the server's
 * time.
 */
// Each test has its own test server and store: they run side by side.
@org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
class VmWorkflowTest {
  static final long DELAY = 15_000;
  static final long MAX_DELAY = 300_000;

  record Call(String what, long atMillis) {}

  static final class FakeVmStore implements VmActivities, VmReadModel {
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<VmLifecycle> lifecycles = new CopyOnWriteArrayList<>();
    volatile VmRecord stored;
    volatile boolean agentDown;
    LongSupplier now;

    final java.util.concurrent.atomic.AtomicInteger loads =
        new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public VmRecord load(VmRef vm) {
      loads.incrementAndGet();
      return stored;
    }

    /**
     * Keeps the row as the real store does, so that a run begun later (a user's action after the
     * last run ended with the VM) starts from where the VM is.
     */
    private void keep(
        String status,
        String worker,
        int restartCount,
        long startedAt,
        long finishedAt,
        long taskEventId,
        long scheduledAt,
        long restartAt) {
      VmRecord r = stored;
      if (r != null) {
        stored =
            new VmRecord(
                status,
                worker,
                restartCount,
                r.restartPolicy(),
                startedAt,
                finishedAt,
                r.restartDelayMillis(),
                r.maxRestartDelayMillis(),
                taskEventId,
                null,
                r.maxRestarts(),
                r.restartWindowMillis(),
                r.ttlSecondsAfterFinished(),
                scheduledAt,
                restartAt,
                r.readiness(),
                r.maxRunSeconds(),
                r.onExpiry(),
                r.leaseEndsAtMillis(),
                r.persistentDisk(),
                r.suspendRefusal(),
                null,
                null);
      }
    }

    private void keepStatus(String status, String worker, int restartCount, long restartAt) {
      VmRecord r = stored;
      if (r != null) {
        keep(
            status,
            worker,
            restartCount,
            r.startedAtMillis(),
            r.finishedAtMillis(),
            r.taskEventId(),
            r.scheduledAtMillis(),
            restartAt);
      }
    }

    @Override
    public void recordStatus(StatusChange change) {
      submissions.add(change.submission());
      calls.add(new Call("status " + change.status(), now.getAsLong()));
      VmRecord r = stored;
      if (r != null) {
        keepStatus(change.status(), r.worker(), r.restartCount(), 0);
      }
    }

    /**
     * How many writes of the read model fail before they succeed: the database away for a while.
     */
    final java.util.concurrent.atomic.AtomicInteger lifecycleFailures =
        new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void recordLifecycle(VmLifecycle lifecycle) {
      submissions.add(lifecycle.submission());
      if (lifecycleFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("Failed to obtain JDBC Connection");
      }
      lifecycles.add(lifecycle);
      calls.add(new Call("lifecycle " + lifecycle.status(), now.getAsLong()));
      keep(
          lifecycle.status(),
          lifecycle.worker(),
          lifecycle.restartCount(),
          lifecycle.startedAtMillis(),
          lifecycle.finishedAtMillis(),
          lifecycle.taskEventId(),
          lifecycle.scheduledAtMillis(),
          stored == null ? 0 : stored.restartAtMillis());
    }

    @Override
    public void recordEvent(VmEvent event) {
      submissions.add(event.submission());
      calls.add(new Call("event " + event.type(), now.getAsLong()));
      VmRecord r = stored;
      if (r != null && event.restartAtMillis() != null) {
        keepStatus(r.status(), r.worker(), r.restartCount(), event.restartAtMillis());
      }
    }

    @Override
    public void requeue(Requeue requeue) {
      submissions.add(requeue.submission());
      calls.add(new Call("requeue " + requeue.restartCount(), now.getAsLong()));
      keepStatus("pending", null, requeue.restartCount(), 0);
      keepLease(requeue.leaseEndsAtMillis());
      requeued.add(requeue.message());
      diskMoves.add(requeue.moveDisk());
      avoiding.put(requeue.restartCount(), String.valueOf(requeue.failedOn()));
    }

    @Override
    public void recordLease(LeaseChange change) {
      submissions.add(change.submission());
      calls.add(new Call(change.eventType() + " " + change.endsAtMillis(), now.getAsLong()));
      keepLease(change.endsAtMillis());
    }

    private void keepLease(long endsAtMillis) {
      VmRecord r = stored;
      if (r != null) {
        stored = rebuilt(r, r.startedAtMillis(), r.maxRunSeconds(), r.onExpiry(), endsAtMillis);
      }
    }

    /** Whether each requeue moved the VM's disk, in order. */
    final List<Boolean> diskMoves = new CopyOnWriteArrayList<>();

    /** Why each requeue was, in order. */
    final List<String> requeued = new CopyOnWriteArrayList<>();

    /**
     * By generation, the worker its requeue asked the scheduler to prefer to avoid ("null": none).
     */
    final java.util.Map<Integer, String> avoiding = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void removeTask(WorkerTask task) {
      if (agentDown) {
        throw new IllegalStateException("connection refused");
      }
      calls.add(new Call("remove " + task.worker() + "/" + task.taskId(), now.getAsLong()));
    }

    /** Why the agent refuses to suspend, or null when it saves the memory. */
    volatile String suspendRefused;

    @Override
    public long suspendTask(WorkerTask task) {
      if (suspendRefused != null) {
        throw io.temporal.failure.ApplicationFailure.newNonRetryableFailure(
            suspendRefused, "SuspendRefused");
      }
      calls.add(new Call("suspend " + task.worker() + "/" + task.taskId(), now.getAsLong()));
      return 3 << 20;
    }

    @Override
    public void pauseTask(PauseTask pause) {
      if (suspendRefused != null) {
        throw io.temporal.failure.ApplicationFailure.newNonRetryableFailure(
            suspendRefused, "AgentRefused");
      }
      calls.add(
          new Call(
              (pause.pause() ? "pause " : "continue ") + pause.worker() + "/" + pause.taskId(),
              now.getAsLong()));
    }

    @Override
    public void deleteVm(VmRef vm) {
      submissions.add(vm.submission());
      calls.add(new Call("delete", now.getAsLong()));
    }

    @Override
    public void deleteWithTasks(Deletion deletion) {
      for (WorkerTask task : deletion.tasks()) {
        try {
          removeTask(task);
        } catch (IllegalStateException e) {
          calls.add(new Call("task left " + task.worker() + "/" + task.taskId(), now.getAsLong()));
        }
      }
      deleteVm(deletion.vm());
    }

    /** The submission each write of the VM named. */
    final java.util.Set<Long> submissions = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What it did besides logging events and recording what task events made of the VM. */
    List<String> what() {
      return calls.stream()
          .map(Call::what)
          .filter(w -> !w.startsWith("event") && !w.startsWith("lifecycle"))
          .toList();
    }

    long when(String what) {
      return calls.stream()
          .filter(c -> c.what().equals(what))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no " + what + " in " + calls))
          .atMillis();
    }
  }

  private TestWorkflowEnvironment env;
  private final FakeVmStore store = new FakeVmStore();

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  private VmWorkflow start(String status, String worker, int restartCount, String policy) {
    return start(stored(status, worker, restartCount, policy, 0, null, 0, null));
  }

  /** A VM as the store holds it, with the host's restart delays and nothing else given. */
  private static VmRecord stored(
      String status,
      String worker,
      int restartCount,
      String policy,
      long taskEventId,
      Integer maxRestarts,
      long restartWindowMillis,
      Integer ttlSeconds) {
    return stored(
        status,
        worker,
        restartCount,
        policy,
        taskEventId,
        maxRestarts,
        restartWindowMillis,
        ttlSeconds,
        null);
  }

  /**
   * As above, its tasks carrying {@code taskName} (a VM claimed from a pool), or null for its own.
   */
  private static VmRecord stored(
      String status,
      String worker,
      int restartCount,
      String policy,
      long taskEventId,
      Integer maxRestarts,
      long restartWindowMillis,
      Integer ttlSeconds,
      String taskName) {
    return new VmRecord(
        status,
        worker,
        restartCount,
        policy,
        0,
        0,
        DELAY,
        MAX_DELAY,
        taskEventId,
        null,
        maxRestarts,
        restartWindowMillis,
        ttlSeconds,
        0,
        0,
        dev.rota.core.lifecycle.HeardReadiness.none(false),
        null,
        null,
        0,
        false,
        null,
        null,
        taskName);
  }

  private VmWorkflow start(VmRecord stored) {
    return start(stored, false);
  }

  /**
   * With {@code handedOver}, the VM is passed to its workflow as its submitter does, not read back.
   */
  private VmWorkflow start(VmRecord stored, boolean handedOver) {
    store.stored = stored;
    env = TemporalTestEnvironments.started(store);
    store.now = env::currentTimeMillis;
    VmWorkflow vm = starter();
    WorkflowClient.start(vm::run, "a", null, handedOver ? stored : null);
    return vm;
  }

  /** A stub that starts the VM's workflow, or joins its open run, as the product's do. */
  private VmWorkflow starter() {
    return env.getWorkflowClient()
        .newWorkflowStub(
            VmWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(VmWorkflow.workflowId("a"))
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .build());
  }

  private long now() {
    return env.currentTimeMillis();
  }

  /**
   * A user's action as the product carries it: to the open run, or, when the last run ended with
   * the VM, with the start of the next (update-with-start).
   */
  private String act(VmWorkflow vm, Function<VmWorkflow, Functions.Func<String>> action) {
    try {
      return action.apply(vm).apply();
    } catch (WorkflowNotFoundException ended) {
      VmWorkflow next = starter();
      return WorkflowClient.startUpdateWithStart(
              action.apply(next),
              UpdateOptions.<String>newBuilder()
                  .setWaitForStage(WorkflowUpdateStage.COMPLETED)
                  .build(),
              new WithStartWorkflowOperation<>(next::run, "a", null, null))
          .getResult();
    }
  }

  /** Outbox ids: increasing, as the scheduler's commits draw them. */
  private long lastEventId;

  private TaskEvent event(int generation, String type, Integer exitCode) {
    return new TaskEvent(
        ++lastEventId,
        "a." + generation,
        "w1",
        type,
        exitCode,
        "task a." + generation + " " + type,
        now(),
        "exited".equals(type) || "failed".equals(type) ? startedAt : 0,
        false);
  }

  private long startedAt;

  /**
   * Signals the event, again while the workflow is between two runs: the test server's
   * continue-as-new is not atomic, and a signal then finds no workflow (the product's notifier
   * keeps such an event in the outbox and sends it again).
   */
  private void tell(VmWorkflow vm, TaskEvent e) {
    for (int attempt = 0; ; attempt++) {
      try {
        vm.taskEvent(e);
        return;
      } catch (io.temporal.client.WorkflowNotFoundException notYet) {
        if (attempt >= 50) {
          throw notYet;
        }
        settle();
      }
    }
  }

  private void placed(VmWorkflow vm, int generation) {
    tell(vm, event(generation, "placed", null));
  }

  private void runs(VmWorkflow vm, int generation) {
    startedAt = now();
    tell(vm, event(generation, "started", null));
  }

  private long fails(VmWorkflow vm, int generation, int exitCode) {
    long at = now();
    tell(vm, event(generation, "exited", exitCode));
    return at;
  }

  /**
   * Until its first workflow task has loaded the stored record, the workflow answers queries as
   * new.
   */
  private void awaitStatus(VmWorkflow vm, String status) {
    for (int i = 0; i < 100 && !status.equals(vm.status()); i++) {
      settle();
    }
    assertEquals(status, vm.status());
  }

  /**
   * Lets the workflow take up what it was last sent: a moment of workflow time, then until no
   * workflow task or activity of its is under way (on a loaded machine that takes longer than the
   * moment).
   */
  private void settle() {
    dev.rota.workflows.Settled.settle(env, VmWorkflow.workflowId("a"));
  }

  @Test
  void onFailureRestartsAfter15Then30Then60SecondsCountedFromTheFailureAndNeverSooner()
      throws Exception {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    long[] expectedDelays = {15_000, 30_000, 60_000};
    for (int generation = 0; generation < 3; generation++) {
      runs(vm, generation);
      settle();
      long failedAt = fails(vm, generation, 1);
      env.sleep(Duration.ofMillis(expectedDelays[generation] - 1_000));
      assertEquals("failed", vm.status(), "not restarted before its delay");
      env.sleep(Duration.ofMillis(2_000));
      long restartedAt = store.when("requeue " + (generation + 1));
      assertTrue(
          restartedAt >= failedAt + expectedDelays[generation],
          "restart "
              + (generation + 1)
              + " came "
              + (restartedAt - failedAt)
              + " ms after the failure");
      assertEquals("pending", vm.status());
      assertEquals(
          "w1",
          store.avoiding.get(generation + 1),
          "the restart prefers a worker other than the one it failed on");
    }
    // The VM's life as the Temporal UI shows it, in words and waits, not JSON and epoch numbers.
    List<String> said = Histories.summaries(env.getWorkflowClient(), "vm-a");
    for (String line :
        List.of("restart 1 in 15 s", "restart 2 in 30 s", "restart 3 in 1 min", "load vm a")) {
      assertTrue(said.contains(line), line + " in " + said);
    }
    assertTrue(said.stream().anyMatch(l -> l.startsWith("pending as a.1: ")), said.toString());
    assertTrue(
        said.stream().anyMatch(l -> l.startsWith("restart 1 scheduled for ")), said.toString());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-restarts");
  }

  @Test
  void afterMaxRestartsWithinTheWindowItStaysFailedSayingWhyUntilStartedByHand() {
    VmWorkflow vm =
        start(stored("pending", null, 0, "OnFailure", 0, 2, Duration.ofHours(1).toMillis(), null));
    for (int generation = 0; generation < 2; generation++) {
      runs(vm, generation);
      settle();
      fails(vm, generation, 1);
      env.sleep(Duration.ofMinutes(2));
      assertEquals("pending", vm.status(), "restart " + (generation + 1) + " of 2");
    }
    runs(vm, 2);
    settle();
    fails(vm, 2, 1);
    env.sleep(Duration.ofMinutes(30));
    assertEquals("failed", vm.status());
    assertEquals(
        List.of("requeue 1", "requeue 2", "status failed"),
        store.what(),
        "no third restart within the hour");

    assertTrue(runOpen(), "it failed for good: its run stays open, showing it failed");
    assertEquals("pending", act(vm, v -> v::start), "a start by hand begins the count afresh");
    runs(vm, 3);
    settle();
    fails(vm, 3, 1);
    env.sleep(Duration.ofMinutes(2));
    assertEquals("pending", vm.status());
  }

  @Test
  void failuresOlderThanTheWindowDoNotCountTowardMaxRestarts() {
    VmWorkflow vm =
        start(
            stored("pending", null, 0, "OnFailure", 0, 1, Duration.ofMinutes(10).toMillis(), null));
    runs(vm, 0);
    settle();
    fails(vm, 0, 1);
    env.sleep(Duration.ofMinutes(11));
    assertEquals("pending", vm.status());
    runs(vm, 1);
    settle();
    fails(vm, 1, 1);
    env.sleep(Duration.ofMinutes(2));
    assertEquals("pending", vm.status(), "the first restart fell out of the ten minutes");
  }

  /**
   * The read model is written by a local activity, which the SDK does not retry when its retry
   * policy has no maximum of attempts and no schedule-to-close timeout: one failed write (the
   * database away for a moment) failed the whole workflow and left its VM without one, for good.
   */
  @Test
  void aReadModelWriteThatFailsWhileTheDatabaseIsAwayIsRetriedAndTheWorkflowGoesOn() {
    store.lifecycleFailures.set(2);
    VmWorkflow vm = start("pending", null, 0, "Never");
    placed(vm, 0);
    settle();
    runs(vm, 0);
    for (int i = 0;
        i < 500 && store.lifecycles.stream().noneMatch(l -> l.status().equals("running"));
        i++) {
      settle();
    }
    assertEquals(0, store.lifecycleFailures.get(), "both failures met");
    assertTrue(
        store.lifecycles.stream().anyMatch(l -> l.status().equals("running")),
        "recorded once the database was back");
    assertEquals(
        io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        env.getWorkflowClient()
            .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
            .describe()
            .getStatus(),
        "the workflow goes on");
    assertEquals("running", vm.status());
  }

  @Test
  void aVmHandedOverAtSubmissionStartsWithoutReadingTheStoreAndRunsAsOneReadBack()
      throws Exception {
    VmWorkflow vm = start(stored("pending", null, 0, "OnFailure", 0, null, 0, null), true);
    placed(vm, 0);
    settle();
    runs(vm, 0);
    settle();
    assertEquals("running", vm.status());
    fails(vm, 0, 1);
    env.sleep(Duration.ofMillis(DELAY + 1_000));
    assertEquals("pending", vm.status(), "its restart policy came with it");
    assertEquals(
        0,
        store.loads.get(),
        "one Temporal action fewer per VM: no activity to read back what was just written");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-submitted");
  }

  @Test
  void
      aVmFailedOverByTheSchedulerIsScheduledOnItsNewWorkerAtOnceAndTheLossOfItsOldTaskChangesNothing()
          throws Exception {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    placed(vm, 0);
    settle();
    runs(vm, 0);
    settle();
    tell(
        vm,
        new TaskEvent(
            ++lastEventId,
            "a.1",
            "w2",
            "failed-over",
            null,
            "worker w1 went offline with task a.0; failed over to worker w2 as task a.1",
            now(),
            0,
            false));
    settle();
    assertEquals("scheduled", vm.status());
    tell(
        vm,
        new TaskEvent(
            ++lastEventId,
            "a.0",
            "w1",
            "worker-offline",
            null,
            "lost with worker w1",
            now(),
            startedAt,
            false));
    env.sleep(Duration.ofMinutes(5));
    assertEquals("scheduled", vm.status(), "an event of the generation before changes nothing");
    assertEquals(
        List.of(), store.what(), "no restart delay, no requeue: the scheduler placed it already");
    VmLifecycle last = store.lifecycles.get(store.lifecycles.size() - 1);
    assertEquals("w2", last.worker());
    assertEquals(1, last.restartCount());
    tell(
        vm,
        new TaskEvent(
            ++lastEventId,
            "a.1",
            "w2",
            "started",
            null,
            "task a.1 running on worker w2",
            now(),
            0,
            false));
    settle();
    assertEquals("running", vm.status());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-failed-over");
  }

  @Test
  void theSameEventDeliveredTwiceIsAppliedOnce() throws Exception {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    placed(vm, 0);
    settle();
    runs(vm, 0);
    settle();
    long failedAt = now();
    TaskEvent end = event(0, "exited", 1);
    vm.taskEvent(end);
    settle();
    vm.taskEvent(end); // delivered again: the outbox sends at least once
    env.sleep(Duration.ofSeconds(16));
    assertEquals(
        1,
        store.calls.stream().filter(c -> c.what().equals("event restart-scheduled")).count(),
        store.calls.toString());
    assertTrue(
        store.when("requeue 1") - failedAt < 30_000, "the first delay, not doubled by the repeat");
    // Events that arrive together are recorded together: how many writes precede the end varies.
    List<VmLifecycle> ends =
        store.lifecycles.stream().filter(l -> l.status().equals("failed")).toList();
    assertEquals(1, ends.size(), store.lifecycles.toString());
    VmLifecycle failed = ends.get(0);
    assertEquals(1, failed.exitCode());
    assertEquals("w1", failed.worker());
    assertEquals(
        end.id(),
        failed.taskEventId(),
        "recorded with the event, so that a restored workflow applies none twice");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-task-events");
  }

  @Test
  void anEventOvertakenByALaterOneChangesNothing() {
    VmWorkflow vm = start("pending", null, 0, "Never");
    TaskEvent placedEvent = event(0, "placed", null);
    TaskEvent started = event(0, "started", null);
    TaskEvent exited = event(0, "exited", 0);
    vm.taskEvent(exited); // delivered in parallel: the end overtook the start and the placement
    // The run may have ended with the VM by now: the notifier drops news for a VM ended for good.
    for (TaskEvent late : List.of(started, placedEvent)) {
      try {
        vm.taskEvent(late);
      } catch (io.temporal.client.WorkflowNotFoundException endedWithTheVm) {
        // nothing to tell
      }
    }
    awaitStatus(vm, "stopped"); // exit code 0 under Never
    for (int i = 0; i < 100 && store.lifecycles.isEmpty(); i++) {
      settle(); // the record is written by an activity after the workflow task that decided it
    }
    // Only the end is recorded (a local activity may run again when its workflow task is retried).
    assertEquals(
        List.of("stopped"), store.lifecycles.stream().map(VmLifecycle::status).distinct().toList());
  }

  @Test
  void eventsSentTogetherAreAppliedInOrderAndRecordedOnce() {
    VmWorkflow vm = start("pending", null, 0, "Never");
    TaskEvent placedEvent = event(0, "placed", null);
    TaskEvent started = event(0, "started", null);
    vm.taskEvents(
        List.of(
            placedEvent, started)); // the start's report carries the placement still in the outbox
    awaitStatus(vm, "running");
    VmLifecycle running = awaitLifecycle(l -> l.status().equals("running"));
    assertEquals("w1", running.worker());
    assertEquals(started.id(), running.taskEventId());
    assertEquals(
        List.of("running"),
        store.lifecycles.stream().map(VmLifecycle::status).toList(),
        "one write for the events of one signal");
    vm.taskEvents(List.of(placedEvent, started)); // sent again (at least once): nothing changes
    settle();
    assertEquals(1, store.lifecycles.size(), store.lifecycles.toString());
  }

  @Test
  void eventsOfAnotherGenerationAreIgnored() {
    VmWorkflow vm = start("running", "w1", 2, "Never");
    awaitStatus(vm, "running");
    runs(vm, 1);
    fails(vm, 1, 3);
    vm.taskEvent(
        new TaskEvent(++lastEventId, "not-a-task-id", "w1", "exited", 3, "?", now(), 0, false));
    settle();
    assertEquals("running", vm.status());
    assertTrue(store.lifecycles.isEmpty(), store.lifecycles.toString());
  }

  @Test
  void aGivenBackTaskMakesTheVmPendingAndItsNextPlacementCounts() {
    VmWorkflow vm = start("pending", null, 0, "Never");
    placed(vm, 0);
    awaitStatus(vm, "scheduled");
    vm.taskEvent(event(0, "given-back", null));
    awaitStatus(vm, "pending");
    vm.taskEvent(
        new TaskEvent(++lastEventId, "a.0", "w2", "placed", null, "placed on w2", now(), 0, false));
    awaitStatus(vm, "scheduled");
    for (int i = 0;
        i < 100 && store.lifecycles.stream().noneMatch(l -> "w2".equals(l.worker()));
        i++) {
      settle(); // recorded by an activity after the workflow task that decided it
    }
    assertTrue(
        store.lifecycles.stream()
            .anyMatch(l -> "w2".equals(l.worker()) && l.status().equals("scheduled")),
        "placed again, elsewhere: same task id, a later event: " + store.lifecycles);
  }

  @Test
  void aWorkflowResumedFromTheStoreAppliesNoEventTwice() {
    VmWorkflow vm = start(stored("running", "w1", 0, "Never", 7, null, 0, null));
    awaitStatus(vm, "running");
    vm.taskEvent(new TaskEvent(7, "a.0", "w1", "exited", 3, "again", now(), 0, false));
    settle();
    assertEquals("running", vm.status(), "event 7 was applied before the workflow was lost");
    assertTrue(store.lifecycles.isEmpty());
  }

  @Test
  void theDelayResetsAfterTenMinutesOfRunning() {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    runs(vm, 0);
    settle();
    fails(vm, 0, 1);
    env.sleep(Duration.ofSeconds(16));
    runs(vm, 1);
    env.sleep(Duration.ofMinutes(11));
    long failedAt = fails(vm, 1, 1);
    env.sleep(Duration.ofSeconds(16));
    assertTrue(store.when("requeue 2") - failedAt < 30_000, "back to the first delay, not doubled");
  }

  @Test
  void alwaysRestartsAfterExitZeroAndNeverStaysFailed() {
    VmWorkflow always = start("pending", null, 0, "Always");
    runs(always, 0);
    settle();
    fails(always, 0, 0);
    env.sleep(Duration.ofSeconds(16));
    assertTrue(store.what().contains("requeue 1"), store.what().toString());
    assertEquals("null", store.avoiding.get(1), "after exit 0 nothing counts against the worker");
    env.close();

    store.calls.clear();
    VmWorkflow vm = start("pending", null, 0, "Never");
    runs(vm, 0);
    settle();
    fails(vm, 0, 3);
    env.sleep(Duration.ofHours(1));
    assertEquals("failed", vm.status());
    assertTrue(
        store.what().stream().noneMatch(w -> w.startsWith("requeue")), store.what().toString());
  }

  private void on(VmWorkflow vm, int generation, String worker, String type) {
    vm.taskEvent(
        new TaskEvent(
            ++lastEventId,
            "a." + generation,
            worker,
            type,
            null,
            type + " on " + worker,
            now(),
            0,
            false));
  }

  private VmLifecycle lastLifecycle() {
    return store.lifecycles.get(store.lifecycles.size() - 1);
  }

  /**
   * The workflow records what events made of the VM by a local activity, after the task that heard
   * them.
   */
  private VmLifecycle awaitLifecycle(java.util.function.Predicate<VmLifecycle> recorded) {
    for (int i = 0;
        i < 100 && (store.lifecycles.isEmpty() || !recorded.test(lastLifecycle()));
        i++) {
      settle();
    }
    return lastLifecycle();
  }

  /** A VM running generation 0 on w1. */
  private VmWorkflow running(String policy) {
    VmWorkflow vm = start("pending", null, 0, policy);
    placed(vm, 0);
    runs(vm, 0);
    return vm;
  }

  @Test
  void aVmWithAPersistentDiskLeftOnADrainedWorkerMovesWithItsDiskWhateverItsPolicy() {
    VmRecord pending = stored("pending", null, 0, "Never", 0, null, 0, null);
    VmWorkflow vm =
        start(
            new VmRecord(
                pending.status(),
                pending.worker(),
                pending.restartCount(),
                pending.restartPolicy(),
                pending.startedAtMillis(),
                pending.finishedAtMillis(),
                pending.restartDelayMillis(),
                pending.maxRestartDelayMillis(),
                pending.taskEventId(),
                pending.movingFrom(),
                pending.maxRestarts(),
                pending.restartWindowMillis(),
                pending.ttlSecondsAfterFinished(),
                pending.scheduledAtMillis(),
                pending.restartAtMillis(),
                pending.readiness(),
                null,
                null,
                0,
                true,
                null,
                null,
                null));
    placed(vm, 0);
    runs(vm, 0);
    on(vm, 0, "w1", "drained");
    awaitStatus(vm, "pending");
    for (int i = 0; i < 100 && store.requeued.isEmpty(); i++) {
      settle();
    }
    assertTrue(
        store.requeued.get(0).startsWith("moving with its persistent disk, copied from worker w1"),
        store.requeued.toString());
    assertEquals(List.of(true), store.diskMoves, "its requeue asks its disk to move");
  }

  @Test
  void aMovedVmRunsOnItsOldCopyUntilTheNewOneStarts() {
    VmWorkflow vm = running("Always");
    on(vm, 1, "w2", "moved");
    VmLifecycle moving = awaitLifecycle(l -> l.restartCount() == 1);
    assertEquals("running", moving.status());
    assertEquals("w1", moving.worker(), "it runs on the old copy meanwhile");

    on(vm, 1, "w2", "given-back"); // the new copy could not be started there
    on(vm, 1, "w3", "placed");
    VmLifecycle replaced = awaitLifecycle(l -> l.message().contains("w3"));
    assertEquals(
        "running",
        replaced.status(),
        "neither a given-back nor a placement of the new copy stops it running");
    assertEquals("w1", replaced.worker());

    on(vm, 1, "w3", "started");
    VmLifecycle started = awaitLifecycle(l -> "w3".equals(l.worker()));
    assertEquals("running", started.status());
    assertEquals(
        List.of(),
        store.what(),
        "the scheduler removes the old copy: no requeue, no removal from here");
  }

  @Test
  void aLiveMoveThatFailedLeavesTheVmRunningOnItsOldCopyAsBefore() throws Exception {
    VmWorkflow vm = running("Never");
    on(vm, 1, "w2", "moved");
    awaitLifecycle(l -> l.restartCount() == 1);
    on(vm, 1, "w2", "move-failed"); // the new copy failed before the VM arrived
    VmLifecycle stayed =
        awaitLifecycle(l -> l.restartCount() == 0 && l.message().contains("move-failed"));
    assertEquals("running", stayed.status());
    assertEquals("w1", stayed.worker(), "it never left its old copy");
    assertEquals("running", vm.status());
    env.sleep(Duration.ofMinutes(5));
    assertEquals(
        List.of(),
        store.what(),
        "no restart, no removal from here: the scheduler removes the failed copy");
    on(vm, 0, "w1", "vanished"); // its old copy is its current task again: its end is the VM's
    awaitStatus(vm, "failed");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-live-move-failed");
  }

  @Test
  void aSuspendOrAPauseWhileItMovesIsRefusedAndChangesNothing() throws Exception {
    VmWorkflow vm = running("Never");
    on(vm, 1, "w2", "moved");
    awaitLifecycle(l -> l.restartCount() == 1);
    WorkflowUpdateException suspend =
        assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::suspend));
    assertTrue(
        suspend.getCause().getMessage().contains("it is moving from worker w1"),
        suspend.getCause().getMessage());
    assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::pause));
    assertEquals("running", vm.status());
    assertEquals(List.of(), store.what(), "nothing asked of either copy's agent");

    on(vm, 1, "w2", "started"); // moved: it may be suspended now, where it runs
    awaitLifecycle(l -> "w2".equals(l.worker()));
    assertEquals("suspended", vm.suspend());
    assertEquals("suspend w2/a.1", store.what().get(1), store.what().toString());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-suspend-after-move");
  }

  @Test
  void aVmClaimedFromAPoolStopsAndRestartsTheTasksCarryingItsReplicasName() {
    VmWorkflow vm = start(stored("running", "w1", 0, "Always", 0, null, 0, null, "runners-7"));
    assertEquals("pending", vm.restart());
    assertEquals(List.of("requeue 1", "remove w1/runners-7.0"), store.what());
    placed(vm, 1);
    runs(vm, 1);
    assertEquals("stopped", vm.stop());
    assertEquals(
        List.of(
            "requeue 1",
            "remove w1/runners-7.0",
            "status stopping",
            "remove w1/runners-7.1",
            "status stopped"),
        store.what());
  }

  @Test
  void stoppingAMovingVmRemovesBothCopies() {
    VmWorkflow vm = running("Never");
    on(vm, 1, "w2", "moved");
    awaitLifecycle(l -> l.restartCount() == 1);
    assertEquals("stopped", vm.stop());
    assertEquals(
        List.of("status stopping", "remove w2/a.1", "remove w1/a.0", "status stopped"),
        store.what());
  }

  @Test
  void aMoveThatFindsTheVmNoLongerRunningJustPlacesItsTask() {
    VmWorkflow vm = running("OnFailure");
    fails(vm, 0, 3); // the old copy failed after the term decided the move
    on(vm, 1, "w2", "moved");
    awaitStatus(vm, "scheduled");
    settle();
    assertEquals(1, lastLifecycle().restartCount());
    assertEquals("w2", lastLifecycle().worker());
    env.sleep(Duration.ofMinutes(2));
    assertTrue(
        store.what().stream().noneMatch(w -> w.startsWith("requeue")),
        "the restart is the move's: " + store.what());
  }

  @Test
  void aMoveOfAGenerationTheVmIsNotNextToIsIgnored() {
    VmWorkflow vm = running("Never");
    on(vm, 2, "w2", "moved");
    on(vm, 0, "w1", "vanished"); // a later event, so that the one before it has surely been heard
    awaitStatus(vm, "failed");
    assertTrue(
        store.lifecycles.stream().allMatch(l -> l.restartCount() == 0),
        "never at generation 2: " + store.lifecycles);
  }

  @Test
  void aVmWithoutARestartPolicyLeftOnADrainedWorkerStopsAndStaysStopped() {
    VmWorkflow vm = running("Never");
    on(vm, 0, "w1", "drained");
    awaitStatus(vm, "stopped");
    assertEquals(List.of("status stopping", "remove w1/a.0", "status stopped"), store.what());
    env.sleep(Duration.ofHours(1));
    assertEquals("stopped", vm.status());
    assertTrue(runEnded(), "a stopped VM is the user's: its run ended with it");
  }

  @Test
  void aVmWithARestartPolicyLeftOnADrainedWorkerStartsAgainAtOnceAndNotAsAFailure()
      throws Exception {
    VmWorkflow vm = running("OnFailure");
    on(vm, 0, "w1", "drained");
    awaitStatus(vm, "pending");
    for (int i = 0; i < 100 && store.what().size() < 2; i++) {
      settle();
    }
    assertEquals(
        List.of("requeue 1", "remove w1/a.0"),
        store.what(),
        "no restart delay: the new generation first");
    assertEquals(
        "null", store.avoiding.get(1), "a drain counts against neither the VM nor the worker");
    on(vm, 0, "w1", "drained"); // a repeat of an older generation's eviction changes nothing
    env.sleep(Duration.ofMinutes(1));
    assertEquals(List.of("requeue 1", "remove w1/a.0"), store.what());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-drained");
  }

  @Test
  void aPreemptedVmWaitsForRoomAgainAtOnceAndNotAsAFailureSayingForWhom() throws Exception {
    VmWorkflow vm = running("Always");
    vm.taskEvent(
        new TaskEvent(
            ++lastEventId,
            "a.0",
            "w1",
            "preempted",
            null,
            "preempted on worker w1 by release (priority 80, this VM's 20)",
            now(),
            0,
            false));
    awaitStatus(vm, "pending");
    for (int i = 0; i < 100 && store.what().size() < 2; i++) {
      settle();
    }
    assertEquals(
        List.of("requeue 1", "remove w1/a.0"),
        store.what(),
        "no restart delay: the new generation first, then the old task removed");
    assertEquals(
        "waiting for room again: preempted on worker w1 by release (priority 80, this VM's 20)"
            + " (restart 1, restartPolicy Always)",
        store.requeued.get(0));
    assertEquals("null", store.avoiding.get(1), "it may go back to w1 once there is room");
    on(vm, 0, "w1", "preempted"); // a repeat for an older generation changes nothing
    env.sleep(Duration.ofMinutes(1));
    assertEquals(List.of("requeue 1", "remove w1/a.0"), store.what());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-preempted");
  }

  @Test
  void aPreemptedVmWithoutARestartPolicyStops() {
    VmWorkflow vm = running("Never");
    on(vm, 0, "w1", "preempted");
    awaitStatus(vm, "stopped");
    assertEquals(List.of("status stopping", "remove w1/a.0", "status stopped"), store.what());
  }

  private VmWorkflow startWithTtl(String policy, Integer maxRestarts, int ttlSeconds) {
    return start(
        stored(
            "pending",
            null,
            0,
            policy,
            0,
            maxRestarts,
            maxRestarts == null ? 0 : Duration.ofHours(1).toMillis(),
            ttlSeconds));
  }

  /** Whether the VM's workflow (its latest run) has completed. */
  private boolean completed() {
    var events = env.getWorkflowClient().fetchHistory(VmWorkflow.workflowId("a")).getEvents();
    return events.get(events.size() - 1).hasWorkflowExecutionCompletedEventAttributes();
  }

  private void awaitDeleted() {
    for (int i = 0; i < 100 && !(store.what().contains("delete") && completed()); i++) {
      settle();
    }
    assertTrue(store.what().contains("delete"), store.what().toString());
    assertTrue(completed(), "its workflow completed");
  }

  @Test
  void aStoppedVmWithATtlIsDeletedThatLongAfterAndItsWorkflowCompletes() throws Exception {
    VmWorkflow vm = startWithTtl("Never", null, 600);
    placed(vm, 0);
    runs(vm, 0);
    settle();
    assertEquals("stopped", vm.stop());
    env.sleep(Duration.ofSeconds(599));
    assertEquals("stopped", vm.status());
    assertEquals(
        List.of("status stopping", "remove w1/a.0", "status stopped"),
        store.what(),
        "not before its TTL");
    env.sleep(Duration.ofSeconds(2));
    awaitDeleted();
    assertEquals(
        List.of("status stopping", "remove w1/a.0", "status stopped", "delete"), store.what());
    Histories.replayAndMaybeRecord(env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-ttl");
  }

  @Test
  void aStartWithinTheTtlKeepsTheVmAndItsNextFinishCountsAfresh() {
    VmWorkflow vm = startWithTtl("Never", null, 600);
    runs(vm, 0);
    settle();
    fails(vm, 0, 3);
    env.sleep(Duration.ofSeconds(300));
    assertEquals("failed", vm.status());
    assertEquals("pending", vm.start());
    env.sleep(Duration.ofHours(1));
    assertEquals("pending", vm.status(), "a VM that waits for a worker is not finished");
    runs(vm, 1);
    settle();
    fails(vm, 1, 0);
    env.sleep(Duration.ofSeconds(599));
    assertTrue(
        store.what().stream().noneMatch(w -> w.equals("delete")),
        "600 s from its second finish: " + store.what());
    env.sleep(Duration.ofSeconds(2));
    awaitDeleted();
  }

  @Test
  void aVmWhoseRestartIsComingIsNotFinishedUntilItsRestartsAreUsedUp() {
    VmWorkflow vm = startWithTtl("OnFailure", 1, 10);
    runs(vm, 0);
    settle();
    fails(vm, 0, 1);
    env.sleep(Duration.ofSeconds(16)); // past the TTL, but its restart was due at 15 s
    assertEquals(List.of("requeue 1"), store.what());
    runs(vm, 1);
    settle();
    fails(vm, 1, 1); // its one restart used: failed for good
    env.sleep(Duration.ofSeconds(9));
    assertEquals(List.of("requeue 1", "status failed"), store.what());
    env.sleep(Duration.ofSeconds(2));
    awaitDeleted();
  }

  /** A pending VM whose lease is {@code maxRunSeconds}, ending as {@code onExpiry} says. */
  private VmWorkflow startLeased(String policy, int maxRunSeconds, String onExpiry) {
    return start(
        leased(stored("pending", null, 0, policy, 0, null, 0, null), maxRunSeconds, onExpiry, 0));
  }

  private static VmRecord leased(
      VmRecord r, int maxRunSeconds, String onExpiry, long endsAtMillis) {
    return rebuilt(r, r.startedAtMillis(), maxRunSeconds, onExpiry, endsAtMillis);
  }

  /** {@code r} with its task's start and its lease as given. */
  static VmRecord rebuilt(
      VmRecord r, long startedAtMillis, Integer maxRunSeconds, String onExpiry, long endsAtMillis) {
    return rebuilt(r, startedAtMillis, maxRunSeconds, onExpiry, endsAtMillis, r.suspendRefusal());
  }

  /** {@code r} with its task's start, its lease and why it cannot be suspended as given. */
  static VmRecord rebuilt(
      VmRecord r,
      long startedAtMillis,
      Integer maxRunSeconds,
      String onExpiry,
      long endsAtMillis,
      String suspendRefusal) {
    return new VmRecord(
        r.status(),
        r.worker(),
        r.restartCount(),
        r.restartPolicy(),
        startedAtMillis,
        r.finishedAtMillis(),
        r.restartDelayMillis(),
        r.maxRestartDelayMillis(),
        r.taskEventId(),
        r.movingFrom(),
        r.maxRestarts(),
        r.restartWindowMillis(),
        r.ttlSecondsAfterFinished(),
        r.scheduledAtMillis(),
        r.restartAtMillis(),
        r.readiness(),
        maxRunSeconds,
        onExpiry,
        endsAtMillis,
        r.persistentDisk(),
        suspendRefusal,
        r.pauseRefusal(),
        null);
  }

  /** When the lease the store holds runs out, once its workflow has written it. */
  private long leaseEnds() {
    for (int i = 0; i < 100 && store.stored.leaseEndsAtMillis() == 0; i++) {
      settle(); // written by an activity after the workflow task that heard the start
    }
    return store.stored.leaseEndsAtMillis();
  }

  /**
   * When the lease the store holds runs out: {@code maxRunSeconds} after its task was seen running
   * (the event's time, a moment after the test noted it).
   */
  private long leaseBegan(int maxRunSeconds) {
    long endsAt = leaseEnds();
    long from = endsAt - maxRunSeconds * 1000L;
    assertTrue(
        from >= startedAt && from < startedAt + 1_000, "began as it ran: " + (from - startedAt));
    return endsAt;
  }

  @Test
  void aVmWhoseLeaseRunsOutIsStoppedAndAnExtensionPutsThatOff() throws Exception {
    VmWorkflow vm = startLeased("Never", 3600, "stop");
    placed(vm, 0);
    env.sleep(Duration.ofMinutes(10)); // waiting for room spends none of it
    runs(vm, 0);
    settle();
    long endsAt = leaseBegan(3600);
    assertEquals(List.of("lease-started " + endsAt), store.what());
    env.sleep(Duration.ofMinutes(50));
    assertEquals(
        java.time.Instant.ofEpochMilli(endsAt + 1_800_000).toString(), vm.extendLease(1800));
    env.sleep(Duration.ofMinutes(11)); // past the lease as first given
    assertEquals("running", vm.status());
    env.sleep(Duration.ofMinutes(29)); // past the extended lease
    awaitStatus(vm, "stopped");
    assertEquals(
        List.of(
            "lease-started " + endsAt,
            "lease-extended " + (endsAt + 1_800_000),
            "status stopping",
            "remove w1/a.0",
            "status stopped"),
        store.what());
    assertTrue(
        store.when("status stopped") >= endsAt + 1_800_000, "not a moment before it ran out");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-lease");
  }

  @Test
  void aRestartGivesNoneOfTheLeaseBackAndAStartBeginsANewOne() {
    VmWorkflow vm = startLeased("OnFailure", 600, "stop");
    runs(vm, 0);
    settle();
    long endsAt = leaseBegan(600);
    env.sleep(Duration.ofSeconds(300));
    fails(vm, 0, 1);
    env.sleep(Duration.ofSeconds(16)); // restarted 15 s after the failure
    runs(vm, 1);
    settle();
    assertEquals(endsAt, store.stored.leaseEndsAtMillis(), "the same lease across the restart");
    env.sleep(Duration.ofMillis(Math.max(0, endsAt - now()) + 1_000));
    awaitStatus(vm, "stopped");
    assertEquals(
        List.of(
            "lease-started " + endsAt,
            "requeue 1",
            "status stopping",
            "remove w1/a.1",
            "status stopped"),
        store.what());
    assertEquals("pending", act(vm, v -> v::start));
    assertEquals(0, store.stored.leaseEndsAtMillis(), "a start's lease has not begun");
    env.sleep(Duration.ofHours(1)); // pending: its new lease has not begun
    runs(vm, 2);
    awaitStatus(vm, "running");
    settle();
    assertTrue(leaseBegan(600) > endsAt + 3_600_000, "a new lease");
  }

  @Test
  void aLeaseThatRunsOutBeforeARestartIsDueEndsTheVmWithoutTheRestart() {
    VmWorkflow vm = startLeased("OnFailure", 20, "stop");
    runs(vm, 0);
    settle();
    env.sleep(Duration.ofSeconds(10));
    fails(vm, 0, 1); // its restart is due 15 s later, after the lease
    env.sleep(Duration.ofSeconds(11));
    awaitStatus(vm, "stopped");
    assertTrue(
        store.what().stream().noneMatch(w -> w.startsWith("requeue")), store.what().toString());
    env.sleep(Duration.ofSeconds(30));
    assertEquals("stopped", vm.status(), "no restart after the lease ran out");
  }

  @Test
  void aLeaseEndingInDeleteDeletesTheVmAndItsWorkflowCompletes() {
    VmWorkflow vm = startLeased("Always", 60, "delete");
    placed(vm, 0);
    runs(vm, 0);
    settle();
    long endsAt = leaseBegan(60);
    env.sleep(Duration.ofSeconds(61));
    awaitDeleted();
    assertEquals(List.of("lease-started " + endsAt, "remove w1/a.0", "delete"), store.what());
  }

  @Test
  void aVmSeenRunningBeforeItsWorkflowRanBeginsItsLeaseFromItsStart() {
    store.stored = null;
    env = TemporalTestEnvironments.started(store);
    store.now = env::currentTimeMillis;
    long started = now() - 5_000; // its agent's start, written to its row before the workflow ran
    store.stored = leased(stored("running", "w1", 0, "Never", 1, null, 0, null), 60, "stop", 0);
    store.stored = rebuilt(store.stored, started, 60, "stop", 0);
    VmWorkflow vm = starter();
    WorkflowClient.start(vm::run, "a", null, null);
    awaitStatus(vm, "running");
    assertEquals(started + 60_000, leaseEnds());
    assertEquals(List.of("lease-started " + (started + 60_000)), store.what());
    env.sleep(Duration.ofSeconds(56));
    awaitStatus(vm, "stopped");
  }

  @Test
  void aLeaseKeptInTheStoreRunsOutForAWorkflowResumedFromIt() {
    VmRecord running =
        leased(stored("running", "w1", 0, "Never", 1, null, 0, null), 3600, "stop", 0);
    VmWorkflow vm = start(running);
    awaitStatus(vm, "running");
    // The run before this one (continued as new, or lost with Temporal) left the lease half spent.
    long endsAt = now() + 100_000;
    store.stored = leased(store.stored, 3600, "stop", endsAt);
    env.getWorkflowClient().newUntypedWorkflowStub(VmWorkflow.workflowId("a")).terminate("lost");
    VmWorkflow again = starter();
    WorkflowClient.start(again::run, "a", null, null);
    awaitStatus(again, "running");
    env.sleep(Duration.ofSeconds(99));
    assertEquals("running", again.status());
    env.sleep(Duration.ofSeconds(2));
    awaitStatus(again, "stopped");
    assertTrue(store.when("status stopped") >= endsAt);
  }

  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      textBlock =
          """
          no lease        | 0    | it has no lease (maxRunDuration)
          not yet begun   | 600  | its lease begins when it first runs
          """)
  void anExtensionIsRefusedUnlessALeaseIsUnderWay(String what, int maxRun, String why) {
    VmRecord pending = stored("pending", null, 0, "Never", 0, null, 0, null);
    VmWorkflow vm = start(maxRun == 0 ? pending : leased(pending, maxRun, "stop", 0));
    awaitStatus(vm, "pending");
    WorkflowUpdateException refused =
        assertThrows(WorkflowUpdateException.class, () -> vm.extendLease(60));
    assertTrue(
        String.valueOf(refused.getCause().getMessage())
            .contains("cannot extend the lease of VM a: " + why),
        String.valueOf(refused.getCause().getMessage()));
    assertEquals(List.of(), store.what(), "a refusal changes nothing");
  }

  @Test
  void aStoppedVmsLeaseIsNotExtended() {
    VmWorkflow vm = startLeased("Never", 600, "stop");
    runs(vm, 0);
    settle();
    assertEquals("stopped", vm.stop());
    WorkflowUpdateException refused =
        assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> () -> v.extendLease(60)));
    assertTrue(
        String.valueOf(refused.getCause().getMessage())
            .contains("it is stopped; a start begins a new lease"),
        String.valueOf(refused.getCause().getMessage()));
  }

  @Test
  void aLongLivedVmContinuesAsNewKeepingWhatTheStoreDoesNotHold() throws Exception {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    int generation = 0;
    for (; generation < 200 && !continued(); generation++) {
      runs(vm, generation);
      settle();
      fails(vm, generation, 1);
      env.sleep(Duration.ofMillis(MAX_DELAY + 1_000));
      assertEquals("pending", vm.status());
    }
    assertTrue(continued(), "continued as new after " + generation + " restarts");
    assertTrue(generation > 10, "not before its history is long: " + generation);
    int before = store.what().size();
    runs(vm, generation);
    settle();
    long failedAt = fails(vm, generation, 1);
    env.sleep(Duration.ofSeconds(16));
    assertEquals(
        before,
        store.what().size(),
        "the failures in a row came along: the delay is still the longest");
    env.sleep(Duration.ofMillis(MAX_DELAY - 16_000 + 1_000));
    assertTrue(store.when("requeue " + (generation + 1)) >= failedAt + MAX_DELAY);
    vm.taskEvent(
        new TaskEvent(
            lastEventId,
            "a." + (generation + 1),
            "w1",
            "started",
            null,
            "an old event again",
            now(),
            0,
            false));
    settle();
    assertEquals("pending", vm.status(), "an event applied by the run before is not applied again");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-continued");
  }

  private boolean continued() {
    var started =
        env.getWorkflowClient().fetchHistory(VmWorkflow.workflowId("a")).getEvents().get(0);
    return !started
        .getWorkflowExecutionStartedEventAttributes()
        .getContinuedExecutionRunId()
        .isEmpty();
  }

  @Test
  void aSuspendedVmHoldsNoTaskIgnoresItsTasksEndAndResumesAsANewGenerationOnAStart()
      throws Exception {
    VmWorkflow vm = running("Always");
    settle();
    assertEquals("suspended", vm.suspend());
    assertEquals(
        List.of("status suspending", "suspend w1/a.0", "remove w1/a.0", "status suspended"),
        store.what());
    tell(vm, event(0, "exited", 0)); // its QEMU ended with the suspend: no end of the VM's
    settle();
    assertEquals("suspended", vm.status());
    assertFalse(runEnded(), "a suspended VM's run waits for its start");
    env.sleep(Duration.ofHours(1));
    assertEquals(List.of("status suspended"), store.what().subList(3, 4), "no restart comes");

    WorkflowUpdateException twice =
        assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::suspend));
    assertTrue(
        twice.getCause().getMessage().contains("it is suspended"), twice.getCause().getMessage());
    assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::restart));

    assertEquals("pending", vm.start());
    assertEquals("requeue 1", store.what().get(store.what().size() - 1));
    assertTrue(
        store.requeued.get(0).startsWith("resuming by request, from its memory saved on worker w1"),
        store.requeued.get(0));
    placed(vm, 1);
    runs(vm, 1);
    settle();
    assertEquals("running", vm.status());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-suspend");
  }

  @Test
  void aSuspendTheAgentCannotCarryOutLeavesTheVmRunningSayingWhy() {
    VmWorkflow vm = running("Never");
    settle();
    store.suspendRefused = "QEMU could not save the VM's memory: no space left on device";
    assertEquals("running", vm.suspend());
    assertEquals(List.of("status suspending", "status running"), store.what());
    assertEquals("running", vm.status());
    assertEquals("stopped", vm.stop(), "and it goes on as a running VM");
  }

  @Test
  void aVmThatCannotBeSuspendedIsRefusedSayingWhyAndNothingChanges() {
    VmRecord r = stored("pending", null, 0, "Never", 0, null, 0, null);
    VmWorkflow vm =
        start(
            rebuilt(
                r,
                r.startedAtMillis(),
                r.maxRunSeconds(),
                r.onExpiry(),
                r.leaseEndsAtMillis(),
                "only qemu VMs can be suspended"));
    placed(vm, 0);
    runs(vm, 0);
    settle();
    WorkflowUpdateException refused =
        assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::suspend));
    assertTrue(
        refused.getCause().getMessage().contains("only qemu VMs can be suspended"),
        refused.getCause().getMessage());
    assertEquals(List.of(), store.what());
    assertEquals("running", vm.status());
  }

  @Test
  void aLeaseEndingInSuspendSuspendsTheVmAndAStartBeginsANewLease() {
    VmWorkflow vm = startLeased("Never", 600, "suspend");
    placed(vm, 0);
    runs(vm, 0);
    settle();
    long endsAt = leaseBegan(600);
    env.sleep(Duration.ofMinutes(11));
    awaitStatus(vm, "suspended");
    assertEquals(
        List.of(
            "lease-started " + endsAt,
            "status suspending",
            "suspend w1/a.0",
            "remove w1/a.0",
            "status suspended"),
        store.what());
    env.sleep(Duration.ofHours(2));
    assertEquals("suspended", vm.status(), "its lease does not run while it is suspended");
    assertEquals("pending", vm.start());
    placed(vm, 1);
    runs(vm, 1);
    settle();
    assertEquals("running", vm.status());
    env.sleep(Duration.ofMinutes(11));
    awaitStatus(vm, "suspended");
  }

  @Test
  void aLeaseEndingInSuspendStopsAVmTheAgentCannotSuspend() {
    VmWorkflow vm = startLeased("Never", 600, "suspend");
    store.suspendRefused = "vm task a.0 is not running";
    placed(vm, 0);
    runs(vm, 0);
    settle();
    env.sleep(Duration.ofMinutes(11));
    awaitStatus(vm, "stopped");
    assertTrue(
        store.what().containsAll(List.of("status suspending", "status running", "status stopped")),
        store.what().toString());
  }

  @Test
  void aVmPausedInPlaceKeepsItsTaskAndAStartRunsItOnInTheSameGeneration() throws Exception {
    VmWorkflow vm = running("Never");
    settle();
    assertEquals("paused", vm.pause());
    assertEquals(List.of("pause w1/a.0", "status paused"), store.what());
    WorkflowUpdateException twice =
        assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::suspend));
    assertTrue(
        twice.getCause().getMessage().contains("it is paused"), twice.getCause().getMessage());
    assertEquals("running", vm.start());
    assertEquals(
        List.of("pause w1/a.0", "status paused", "continue w1/a.0", "status running"),
        store.what());
    assertEquals("paused", vm.pause());
    fails(vm, 0, 3); // its task ends while paused: the VM ends as its task did
    awaitStatus(vm, "failed");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-pause");
  }

  @Test
  void aPauseTheAgentRefusesLeavesTheVmRunningAndAPausedVmStopsAsARunningOneDoes() {
    VmWorkflow vm = running("Never");
    settle();
    store.suspendRefused = "vm task a.0 is not running";
    assertEquals("running", vm.pause());
    assertEquals(List.of(), store.what(), "nothing changed but its events");
    store.suspendRefused = null;
    assertEquals("paused", vm.pause());
    assertEquals("stopped", vm.stop());
    assertEquals(
        List.of(
            "pause w1/a.0", "status paused", "status stopping", "remove w1/a.0", "status stopped"),
        store.what());
  }

  @Test
  void stoppingARunningVmRemovesItsTaskFirst() {
    VmWorkflow vm = running("Never");
    settle();
    assertEquals("stopped", vm.stop());
    assertEquals(List.of("status stopping", "remove w1/a.0", "status stopped"), store.what());
    WorkflowUpdateException again =
        assertThrows(WorkflowUpdateException.class, () -> act(vm, v -> v::stop));
    assertTrue(
        again.getCause().getMessage().contains("it is stopped"), again.getCause().getMessage());
  }

  @Test
  void aStoppedVmStartsAgainAsANewGeneration() {
    VmWorkflow vm = start("pending", null, 0, "Never");
    assertEquals("stopped", vm.stop());
    settle();
    assertTrue(runEnded(), "the run ended with the VM");
    assertEquals("pending", act(vm, v -> v::start), "the next run begins with the start");
    assertEquals(List.of("status stopped", "requeue 1"), store.what());
    runs(vm, 0); // about the old generation: ignored
    settle();
    assertEquals("pending", vm.status());
  }

  @Test
  void stopAndDeleteDuringTheRestartDelayCancelTheRestart() {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    runs(vm, 0);
    settle();
    fails(vm, 0, 1);
    env.sleep(Duration.ofSeconds(5));
    vm.delete();
    WorkflowStub.fromTyped(vm).getResult(Void.class);
    env.sleep(Duration.ofMinutes(1));
    assertEquals(List.of("delete"), store.what(), "no restart, no task to remove (it had ended)");
  }

  @Test
  void everyWriteOfARunNamesTheSubmissionItsMemoNames() {
    VmWorkflow vm =
        startWith(
            stored("running", "w1", 0, "OnFailure", 0, null, 0, null),
            null,
            o -> o.setMemo(java.util.Map.of(VmWorkflow.SUBMISSION, 42L)));
    awaitStatus(vm, "running");
    fails(vm, 0, 1); // a lifecycle, an event and, after the delay, a requeue
    env.sleep(Duration.ofMinutes(1));
    assertEquals("pending", vm.status());
    vm.delete();
    WorkflowStub.fromTyped(vm).getResult(Void.class);
    assertEquals(List.of("requeue 1", "delete"), store.what());
    assertEquals(
        java.util.Set.of(42L),
        store.submissions,
        "a run of a VM deleted meanwhile must not write to a new VM of its name");
  }

  @Test
  void deletingARunningVmRemovesTheTaskBeforeTheRows() {
    VmWorkflow vm = running("Never");
    settle();
    vm.delete();
    WorkflowStub.fromTyped(vm).getResult(Void.class);
    assertEquals(List.of("remove w1/a.0", "delete"), store.what());
  }

  @Test
  void aDeletedVmLeavesNoStatusOrWorkerThatVisibilityQueriesWouldList() throws Exception {
    VmWorkflow vm = start("running", "w1", 0, "Never");
    awaitStatus(vm, "running");
    assertEquals("running", searchAttribute("vm-a", "RotaVmStatus"));
    assertEquals("w1", searchAttribute("vm-a", "RotaWorker"));
    vm.delete();
    WorkflowStub.fromTyped(vm).getResult(Void.class);
    assertEquals("deleted", searchAttribute("vm-a", "RotaVmStatus"));
    assertEquals(null, searchAttribute("vm-a", "RotaWorker"));
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-deleted-in-one-task");
  }

  /**
   * Its placing and its start heard together are shown once: one search-attribute upsert for the
   * workflow task that heard them (each is a visibility write for the server), of the status it
   * ends at; none for its first task, which its start's search attributes already show.
   */
  @Test
  void newsHeardTogetherIsShownInOneUpsert() throws Exception {
    VmWorkflow vm = start(stored("pending", null, 0, "Never", 0, null, 0, null), true);
    startedAt = now();
    vm.taskEvents(List.of(event(0, "placed", null), event(0, "started", null)));
    awaitStatus(vm, "running");
    settle();
    // Submitted, it is shown pending by its start; the task that heard both shows where it ended,
    // and never the status in between.
    assertEquals(List.of("running"), upserts("vm-a"));
    assertEquals("w1", searchAttribute("vm-a", "RotaWorker"));
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-one-upsert-per-task");
  }

  /**
   * A VM's workflow starts once its burst has run it: its start's search attributes show it running
   * on its worker, and its first task shows nothing again (an upsert is a visibility write).
   */
  @Test
  void aVmStartedOnceItRunsIsShownByItsStartAlone() throws Exception {
    VmRecord running = stored("running", "w1", 0, "Never", 0, null, 0, null);
    VmWorkflow vm = startShowing(running, RotaSearchAttributes.atStart(running, null));
    settle();
    assertEquals(List.of(), upserts("vm-a"), "its start shows it already");
    assertEquals(
        "w1",
        env.getWorkflowClient()
            .newUntypedWorkflowStub("vm-a")
            .describe()
            .getTypedSearchAttributes()
            .get(RotaSearchAttributes.WORKER));
    vm.taskEvent(event(0, "exited", 0));
    awaitStatus(vm, "stopped");
    settle();
    assertEquals(List.of("stopped"), upserts("vm-a"), "what it hears next is shown");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-start-shows-worker");
  }

  /**
   * A running VM with a readiness check: its summary (the Temporal UI's current details) says what
   * the check last said, from news that writes nothing and upserts nothing; news that overtook an
   * end does not hide the end.
   */
  @Test
  void aVmsSummaryShowsItsReadinessAndReadinessNewsHidesNoEnd() throws Exception {
    VmRecord stored = stored("running", "w1", 0, "Never", 0, null, 0, null);
    VmWorkflow vm =
        start(
            new VmRecord(
                stored.status(),
                stored.worker(),
                stored.restartCount(),
                stored.restartPolicy(),
                0,
                0,
                DELAY,
                MAX_DELAY,
                0,
                null,
                null,
                0,
                null,
                0,
                0,
                dev.rota.core.lifecycle.HeardReadiness.none(true),
                null,
                null,
                0,
                false,
                null,
                null,
                null));
    awaitStatus(vm, "running");
    settle();
    assertEquals("**running** on w1, restart 0; not ready yet", currentDetails());
    List<String> shownAtStart = upserts("vm-a");

    tell(vm, readiness(0, "not-ready", "tcp port ssh: connection refused", 0));
    awaitDetails("**running** on w1, restart 0; not ready: tcp port ssh: connection refused");
    long readyAt = now();
    tell(vm, readiness(0, "ready", null, readyAt));
    awaitDetails(
        "**running** on w1, restart 0; ready since " + java.time.Instant.ofEpochMilli(readyAt));
    assertEquals(shownAtStart, upserts("vm-a"), "readiness is no search attribute");
    assertTrue(store.lifecycles.isEmpty(), "the store has it already: " + store.lifecycles);

    // Told in parallel, news of the task's readiness overtakes its end: the end still applies.
    TaskEvent exited = event(0, "exited", 3);
    TaskEvent notReady = readiness(0, "not-ready", "guest agent: no answer", 0);
    tell(vm, notReady);
    tell(vm, exited);
    awaitStatus(vm, "failed");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-readiness");
  }

  private TaskEvent readiness(int generation, String type, String why, long at) {
    return new TaskEvent(++lastEventId, "a." + generation, "w1", type, null, why, at, 0, false);
  }

  private String currentDetails() {
    return env.getWorkflowClient()
        .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
        .query(
            WorkflowClient.QUERY_TYPE_WORKFLOW_METADATA,
            io.temporal.api.sdk.v1.WorkflowMetadata.class)
        .getCurrentDetails();
  }

  private void awaitDetails(String details) {
    for (int i = 0; i < 100 && !details.equals(currentDetails()); i++) {
      settle();
    }
    assertEquals(details, currentDetails());
  }

  /** A start that did not show the worker (a host that did not know it yet) is shown after. */
  @Test
  void aVmStartedWithoutItsWorkerShownIsShownByItsFirstTask() throws Exception {
    VmRecord running = stored("running", "w1", 0, "Never", 0, null, 0, null);
    startShowing(
        running,
        RotaSearchAttributes.atStart(stored("running", null, 0, "Never", 0, null, 0, null), null));
    settle();
    assertEquals(List.of("running"), upserts("vm-a"));
    assertEquals("w1", searchAttribute("vm-a", "RotaWorker"));
  }

  /** Started as a host starts it: handed the VM, with these search attributes. */
  private VmWorkflow startShowing(VmRecord stored, io.temporal.common.SearchAttributes shown) {
    return startWith(stored, stored, o -> o.setTypedSearchAttributes(shown));
  }

  /** Started with these options; {@code handedOver} the VM, or null for the run to read it. */
  private VmWorkflow startWith(
      VmRecord stored,
      VmRecord handedOver,
      java.util.function.Consumer<WorkflowOptions.Builder> options) {
    store.stored = stored;
    env = TemporalTestEnvironments.started(store);
    store.now = env::currentTimeMillis;
    WorkflowOptions.Builder builder =
        WorkflowOptions.newBuilder()
            .setWorkflowId(VmWorkflow.workflowId("a"))
            .setTaskQueue(TaskQueues.CONTROL);
    options.accept(builder);
    VmWorkflow vm = env.getWorkflowClient().newWorkflowStub(VmWorkflow.class, builder.build());
    WorkflowClient.start(vm::run, "a", null, handedOver);
    return vm;
  }

  @Test
  void aStartTheRowShowsAlreadyIsNotRecordedAgainButWhatFollowsIs() throws Exception {
    VmWorkflow vm = start(stored("pending", null, 0, "Never", 0, null, 0, null), true);
    startedAt = now();
    vm.taskEvents(List.of(event(0, "placed", null), recorded(event(0, "started", null))));
    awaitStatus(vm, "running");
    settle();
    assertEquals(
        List.of(), store.lifecycles, "the agent's report wrote the start: nothing to record");
    assertEquals(List.of("running"), upserts("vm-a"), "still shown");
    vm.taskEvent(event(0, "exited", 0));
    awaitStatus(vm, "stopped");
    settle();
    assertEquals(List.of("stopped"), store.lifecycles.stream().map(VmLifecycle::status).toList());
    VmLifecycle end = store.lifecycles.get(0);
    assertEquals(lastEventId, end.taskEventId());
    assertEquals(startedAt, end.startedAtMillis(), "the end carries the start it skipped");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-recorded-start");
  }

  /** The event as the notifier sends it when the VM's row shows it already. */
  private static TaskEvent recorded(TaskEvent e) {
    return new TaskEvent(
        e.id(),
        e.taskId(),
        e.worker(),
        e.type(),
        e.exitCode(),
        e.message(),
        e.atMillis(),
        e.startedAtMillis(),
        true);
  }

  /** The statuses the workflow upserted, in order. */
  private List<String> upserts(String workflowId) {
    List<String> shown = new java.util.ArrayList<>();
    for (var event : env.getWorkflowClient().fetchHistory(workflowId).getEvents()) {
      var fields =
          event
              .getUpsertWorkflowSearchAttributesEventAttributes()
              .getSearchAttributes()
              .getIndexedFieldsMap();
      if (event.hasUpsertWorkflowSearchAttributesEventAttributes()
          && fields.containsKey("RotaVmStatus")) {
        shown.add(
            io.temporal.common.converter.DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
                fields.get("RotaVmStatus"), String.class, String.class));
      }
    }
    return shown;
  }

  /** A search attribute's value as the workflow last upserted it; null when unset. */
  private String searchAttribute(String workflowId, String name) {
    String value = null;
    for (var event : env.getWorkflowClient().fetchHistory(workflowId).getEvents()) {
      var fields =
          event
              .getUpsertWorkflowSearchAttributesEventAttributes()
              .getSearchAttributes()
              .getIndexedFieldsMap();
      if (event.hasUpsertWorkflowSearchAttributesEventAttributes() && fields.containsKey(name)) {
        value =
            io.temporal.common.converter.DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
                fields.get(name), String.class, String.class);
      }
    }
    return value;
  }

  @Test
  void anUnreachableAgentDoesNotKeepADeleteFromFinishing() {
    VmWorkflow vm = start("running", "w1", 2, "Never");
    settle();
    store.agentDown = true;
    vm.delete();
    WorkflowStub.fromTyped(vm).getResult(Void.class);
    // The task is left to the scheduler, which removes a task no VM holds once its agent answers.
    assertEquals(List.of("task left w1/a.2", "delete"), store.what());
  }

  @Test
  void actionsTheStatusDoesNotAllowAreRefusedAndChangeNothing() {
    VmWorkflow vm = start("pending", null, 0, "Never");
    assertThrows(WorkflowUpdateException.class, vm::start);
    assertThrows(WorkflowUpdateException.class, vm::restart);
    assertEquals(List.of(), store.what());
    assertEquals("pending", vm.status());
  }

  @Test
  void aUserRestartQueuesTheNewGenerationBeforeRemovingTheOldTask() throws Exception {
    VmWorkflow vm = start("running", "w1", 0, "Never");
    settle();
    assertEquals("pending", vm.restart());
    assertEquals(
        List.of("requeue 1", "remove w1/a.0"),
        store.what(),
        "while the row still said running, a term seeing the task gone would have called the VM failed");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-restart-action");
  }

  /**
   * A workflow restored from the store (the embedded server's state lost) keeps the VM's placement
   * time: its records of later events left the read model's {@code scheduledAt} empty.
   */
  @Test
  void aRestoredWorkflowKeepsWhenItsVmWasPlaced() {
    long placedAt = 1_700_000_000_000L;
    VmWorkflow vm =
        start(
            new VmRecord(
                "running",
                "w1",
                0,
                "Never",
                placedAt + 500,
                0,
                DELAY,
                MAX_DELAY,
                3,
                null,
                null,
                0,
                null,
                placedAt,
                0,
                dev.rota.core.lifecycle.HeardReadiness.none(false),
                null,
                null,
                0,
                false,
                null,
                null,
                null));
    settle();
    tell(
        vm,
        new TaskEvent(
            4, "a.0", "w1", "exited", 0, "task a.0 exited", now(), placedAt + 500, false));
    settle();
    assertEquals("stopped", vm.status());
    VmLifecycle last = store.lifecycles.get(store.lifecycles.size() - 1);
    assertEquals("stopped", last.status());
    assertEquals(placedAt, last.scheduledAtMillis(), store.lifecycles.toString());
    assertEquals(placedAt + 500, last.startedAtMillis());
  }

  @Test
  void aRestoredWorkflowResumesFromTheStoredStatus() {
    VmWorkflow running = start("running", "w1", 3, "Never");
    settle();
    assertEquals(
        "pending", running.restart(), "restart is allowed: the workflow knows it is running");
    assertEquals(
        List.of("requeue 4", "remove w1/a.3"),
        store.what(),
        "the adopted task is the one removed, after the new generation is queued, so no term calls it vanished");
    env.close();

    store.calls.clear();
    long due = 1_000_000_000_000L;
    start(
        new VmRecord(
            "failed",
            "w1",
            1,
            "OnFailure",
            0,
            1,
            DELAY,
            MAX_DELAY,
            0,
            null,
            null,
            0,
            null,
            0,
            due,
            dev.rota.core.lifecycle.HeardReadiness.none(false),
            null,
            null,
            0,
            false,
            null,
            null,
            null));
    env.sleep(Duration.ofMillis(Math.max(0, due - now()) + 1_000));
    assertTrue(
        store.what().contains("requeue 2"),
        "a failed VM whose restart was due when its workflow was lost still restarts: "
            + store.what());
    env.close();

    store.calls.clear();
    VmWorkflow failed = start("failed", "w1", 1, "OnFailure");
    env.sleep(Duration.ofMinutes(10));
    assertEquals(List.of(), store.what(), "no restart was due: it stays failed");
    assertEquals("failed", failed.status());
    assertTrue(runOpen(), "failed for good: its run waits for a start or a delete");
  }

  @Test
  void aVmThatFailsForGoodKeepsItsRunOpenShowingFailedUntilAStartOrADelete() throws Exception {
    VmWorkflow vm = start("pending", null, 0, "Never");
    String run = WorkflowStub.fromTyped(vm).getExecution().getRunId();
    runs(vm, 0);
    settle();
    fails(vm, 0, 3);
    env.sleep(Duration.ofHours(1));
    assertTrue(runOpen(), "failed for good, and still its run: what is failing now");
    assertEquals("failed", vm.status());
    assertEquals("failed", shownStatus(), "the list's RotaVmStatus says so");

    assertEquals("pending", act(vm, v -> v::start));
    assertEquals(run, currentRun(), "the start is taken by the same run");
    assertEquals(List.of("requeue 1"), store.what(), "started from where it was: no restart due");
    runs(vm, 1);
    settle();
    fails(vm, 1, 3);
    settle();
    assertTrue(runOpen());

    vm.delete();
    assertTrue(runEnded(), "a delete ends it");
    assertEquals("deleted", shownStatus(), "shown deleted, so no longer failing now");
    assertEquals(
        io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        env.getWorkflowClient()
            .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
            .describe()
            .getStatus());
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", run, VmWorkflowImpl.class, "vm-failed-stays-open");
  }

  private String currentRun() {
    return env.getWorkflowClient()
        .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
        .describe()
        .getExecution()
        .getRunId();
  }

  /** The VM's status as the Temporal UI's list shows it: its RotaVmStatus search attribute. */
  private String shownStatus() {
    return env.getWorkflowClient()
        .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
        .describe()
        .getTypedSearchAttributes()
        .get(dev.rota.workflows.RotaSearchAttributes.VM_STATUS);
  }

  /** Whether the VM's run is open after it settles. */
  private boolean runOpen() {
    settle();
    return env.getWorkflowClient()
            .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
            .describe()
            .getStatus()
        == io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }

  @Test
  void itsRestartsAndHowItLastEndedAreThereToSearchBy() throws Exception {
    VmWorkflow vm = start("pending", null, 0, "OnFailure");
    runs(vm, 0);
    settle();
    fails(vm, 0, 3);
    env.sleep(Duration.ofSeconds(16));
    awaitStatus(vm, "pending");
    var shown =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
            .describe()
            .getTypedSearchAttributes();
    assertEquals(1L, shown.get(RotaSearchAttributes.RESTARTS), "restarted once");
    assertEquals("exit 3", shown.get(RotaSearchAttributes.LAST_EXIT));
    assertEquals("pending", shown.get(RotaSearchAttributes.VM_STATUS));
    runs(vm, 1);
    awaitStatus(vm, "running");
    settle();
    shown =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
            .describe()
            .getTypedSearchAttributes();
    assertEquals("exit 3", shown.get(RotaSearchAttributes.LAST_EXIT), "until the next end");
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), "vm-a", VmWorkflowImpl.class, "vm-search-attributes");
  }

  /**
   * Whether the VM's last run has ended (completed, or failed with the VM's failure), as it does
   * once the VM stops or fails for good.
   */
  private boolean runEnded() {
    for (int i = 0; i < 100; i++) {
      var status =
          env.getWorkflowClient()
              .newUntypedWorkflowStub(VmWorkflow.workflowId("a"))
              .describe()
              .getStatus();
      if (status
          != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        return true;
      }
      settle();
    }
    return false;
  }
}
