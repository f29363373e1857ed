package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.api.vms.VmRequest;
import dev.rota.api.vms.VmService;
import dev.rota.control.ControlWorkflows;
import dev.rota.control.VmSubmissions;
import dev.rota.control.VmWorkflowStarter;
import dev.rota.core.model.TaskState;
import dev.rota.scheduler.term.TaskObservations;
import dev.rota.scheduler.term.VmNotifier;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkflowStartRepository;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vm.VmWorkflow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A submission is answered once stored, with the start its workflow is owed; the start is made
 * right after, or by the sweep, or before a user's action needs the workflow, from the VM's row as
 * it is then.
 */
@MicronautTest(transactional = false)
class WorkflowStartsTest {
  @Inject Http http;
  @Inject WorkflowClient temporal;
  @Inject VmRepository vms;
  @Inject VmSubmissions submissions;
  @Inject VmWorkflowStarter starter;
  @Inject WorkflowStartRepository starts;
  @Inject ControlWorkflows workflows;
  @Inject TaskObservations observations;
  @Inject OutboxRepository outbox;
  @Inject VmNotifier notifier;
  @Inject TransactionOperations<Connection> tx;
  @Inject dev.rota.store.VmTaskRepository tasks;
  @Inject dev.rota.control.WorkflowKeeper keeper;
  @Inject dev.rota.store.CertainCommits certain;
  @Inject dev.rota.scheduler.temporal.TemporalDeadlines deadlines;
  @Inject dev.rota.control.VmActivitiesImpl activities;
  @Inject dev.rota.store.VmEventRepository events;

  private boolean workflowExists(String vm) {
    return VmApiTest.workflowExists(temporal, vm);
  }

  /** A VM stored as a submission is, its workflow owed and not yet started by anyone. */
  private VmRow owed(String name, Instant submittedAt) {
    VmRow row =
        VmRow.submitted(
            name,
            0,
            VmService.spec(
                new VmRequest(
                    name,
                    null,
                    null,
                    List.of("sleep", "60"),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null),
                ""),
            "waiting for the scheduler",
            submittedAt);
    return submissions.submit(row, "submitted");
  }

  private long signals(String vm) {
    return temporal.fetchHistory(VmWorkflow.workflowId(vm)).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
        .count();
  }

  @Test
  void aSubmissionIsAnsweredOnceStoredAndItsWorkflowIsStartedRightAfterNamingItsSubmission() {
    assertEquals(201, http.post("/v1/vms", VmApiTest.vm("ws-quick")).status());
    eventually(
        "its workflow started and nothing owed",
        () -> workflowExists("ws-quick") && !starter.owed("ws-quick"));
    long seq = vms.findById("ws-quick").orElseThrow().seq();
    assertTrue(workflows.openFor("ws-quick", seq), "its memo names its submission");
    assertFalse(workflows.openFor("ws-quick", seq + 1), "and no other");
  }

  @Test
  void aLateWriteOfADeletedVmsRunLeavesTheVmSubmittedAgainUnderItsName() {
    VmRow first = owed("ws-again", Instant.now());
    activities.deleteVm(new VmActivities.VmRef(first.name(), first.seq()));
    assertTrue(vms.findById(first.name()).isEmpty());
    VmRow again = owed("ws-again", Instant.now());
    int lines = events.page(again.name(), 0, 100).size();
    // The first VM's run, still closing: its deletion carried out a second time (an activity
    // retried
    // after its host died), and writes it had queued.
    activities.deleteVm(new VmActivities.VmRef(first.name(), first.seq()));
    activities.recordStatus(
        new VmActivities.StatusChange(first.name(), "stopped", "stopped", "stopped", first.seq()));
    activities.recordEvent(
        new VmActivities.VmEvent(first.name(), "restart-scheduled", "restart 1", first.seq()));
    activities.requeue(
        new VmActivities.Requeue(
            first.name(), 1, "restarted", "restarted", null, first.seq(), 0, false));
    VmRow read = vms.findById(again.name()).orElseThrow();
    assertEquals(again.seq(), read.seq(), "the VM accepted second is not lost");
    assertEquals("pending", read.state().status());
    assertEquals(0, read.state().restartCount());
    assertEquals(lines, events.page(again.name(), 0, 100).size(), "its log is its own");
    assertTrue(starter.owed(again.name()), "and so is the start it is owed");
    activities.deleteVm(new VmActivities.VmRef(again.name(), again.seq()));
    assertTrue(vms.findById(again.name()).isEmpty(), "its own run's deletion removes it");
  }

  @Test
  void theKeepersLookLeavesAVmWhoseStartIsOwedToItsStarter() {
    VmRow vm = owed("ws-kept", Instant.now());
    // Two periodic looks, with Temporal listing nothing running (the test server cannot list).
    keeper.restoreMissingFrom(java.util.Set.of());
    keeper.restoreMissingFrom(java.util.Set.of());
    assertFalse(workflowExists(vm.name()), "a burst's VM waiting for its start is not lost");
    assertTrue(starter.owed(vm.name()), "its start is still owed, for the starter or the sweep");
    assertTrue(starter.startIfOwed(vm.name()));
    assertTrue(workflowExists(vm.name()));
  }

  @Test
  void theKeepersLookStartsAgainOnlyWhatTwoLooksInARowFindMissing() {
    VmRow lost = owed("ws-lost", Instant.now());
    VmRow late = owed("ws-late", Instant.now());
    // Their starts made, as far as the database knows; Temporal's list does not show them yet.
    starts.forgetAll(List.of(lost.name(), late.name()));
    keeper.restoreMissingFrom(java.util.Set.of());
    assertFalse(workflowExists(lost.name()), "one look may be the list lagging the starts");
    assertFalse(workflowExists(late.name()));
    keeper.restoreMissingFrom(
        java.util.Set.of(dev.rota.workflows.vm.VmWorkflow.workflowId(late.name())));
    assertTrue(workflowExists(lost.name()), "missing from two lists in a row: lost, and restored");
    assertFalse(workflowExists(late.name()), "listed by the second look: not lost");
  }

  /** Places the VM on {@code worker} as a term would; returns the news for its workflow. */
  private OutboxRow placed(VmRow vm, String worker) {
    assertEquals(
        1,
        tx.executeWrite(
                s ->
                    observations.placeAll(
                        List.of(new TaskObservations.Placing(vm.name(), vm.seq(), 0, worker, null)),
                        Instant.now()))
            .size());
    return outbox.after(0, 100_000).stream()
        .filter(a -> vm.name().equals(a.vm()) && OutboxRow.NOTIFY.equals(a.kind()))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theNewsOfAVmWhoseWorkflowIsOwedWaitsWithoutAskingTemporalAndIsToldOnceItIsStarted() {
    VmRow vm = owed("ws-placed", Instant.now());
    OutboxRow news = placed(vm, "ws-worker");
    assertThrows(VmNotifier.WorkflowNotStartedYet.class, () -> notifier.notify(news));
    assertFalse(workflowExists(vm.name()), "Temporal was not asked");

    assertTrue(starter.startIfOwed(vm.name()));
    assertFalse(starter.owed(vm.name()));
    assertTrue(
        outbox.after(0, 100_000).stream().anyMatch(a -> a.id() == news.id()),
        "the row does not show the placing: still to tell");
    notifier.notify(news);
    VmWorkflow workflow =
        temporal.newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vm.name()));
    eventually("the workflow heard of its placing", () -> workflow.status().equals("scheduled"));
  }

  @Inject
  @jakarta.inject.Named(dev.rota.scheduler.term.AgentCalls.REPORTED_NEWS)
  java.util.concurrent.ExecutorService reportedNews;

  /**
   * Returns once whatever {@code pool} ran or queued has finished: as many tasks as it has threads,
   * queued after the rest, that each wait until all of them run at once.
   */
  private static void allDone(java.util.concurrent.ExecutorService pool) throws Exception {
    int threads = dev.rota.scheduler.term.AgentCalls.REPORTED_NEWS_THREADS;
    java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(threads);
    List<java.util.concurrent.Callable<Integer>> waits = new java.util.ArrayList<>();
    for (int i = 0; i < threads; i++) {
      waits.add(() -> together.await(30, java.util.concurrent.TimeUnit.SECONDS));
    }
    for (java.util.concurrent.Future<Integer> f : pool.invokeAll(waits)) {
      f.get();
    }
  }

  @Test
  void aStartHandsTheWorkflowTheRowAsItIsThenAndTheNewsItShowsLeavesTheOutboxUntold()
      throws Exception {
    assertEquals(
        201,
        http.post("/v1/workers", "{\"name\":\"ws-w1\",\"endpoint\":\"http://127.0.0.1:1\"}")
            .status());
    VmRow vm = owed("ws-ran", Instant.now());
    OutboxRow placing = placed(vm, "ws-w1");
    String report =
        "{\"tasks\":[{\"id\":\"ws-ran.0\",\"vm\":\"ws-ran\",\"state\":\"running\",\"exitCode\":null,"
            + "\"startedAt\":null,\"finishedAt\":null,\"message\":null}]}";
    assertEquals(204, http.put("/v1/workers/ws-w1/tasks", report).status());
    assertEquals(
        "running",
        vms.findById("ws-ran").orElseThrow().state().status(),
        "the agent's report ran ahead of the workflow");
    // The report tells its news after its answer: that try (not asking Temporal, the workflow being
    // owed) is over before the start, as it would be were the start a moment later.
    allDone(reportedNews);

    assertTrue(starter.startIfOwed("ws-ran"));
    VmWorkflow workflow =
        temporal.newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId("ws-ran"));
    eventually("the workflow took the row: running", () -> workflow.status().equals("running"));
    assertTrue(
        outbox.after(0, 100_000).stream()
            .noneMatch(a -> "ws-ran".equals(a.vm()) && OutboxRow.NOTIFY.equals(a.kind())),
        "the placing and the start the row shows left the outbox untold");
    // A term's pass that took the placing from the outbox before the start, and tells it after.
    assertEquals(
        List.of(), notifier.notify(placing), "news the start took along is not told again");
    assertEquals(0, signals("ws-ran"), "the workflow was told nothing it was not started with");
  }

  @Test
  void aUsersActionWaitsForNoNewsTheRowAlreadyShows() {
    assertEquals(
        201,
        http.post("/v1/workers", "{\"name\":\"ws-w2\",\"endpoint\":\"http://127.0.0.1:1\"}")
            .status());
    VmRow vm = owed("ws-ahead", Instant.now());
    assertTrue(starter.startIfOwed("ws-ahead"));
    VmWorkflow workflow =
        temporal.newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId("ws-ahead"));
    eventually("the workflow took the row: pending", () -> workflow.status().equals("pending"));
    // Placed and started as an agent's report records them, the news left in the outbox untold: the
    // row says running, the workflow still pending.
    placed(vm, "ws-w2");
    VmTaskRow task = tasks.findById(VmTaskRow.id(vm.seq(), "ws-ahead.0")).orElseThrow();
    tx.executeWrite(
        s -> observations.reached(task, TaskState.RUNNING, null, "running", Instant.now()));
    assertEquals("running", vms.findById("ws-ahead").orElseThrow().state().status());
    assertEquals("pending", workflow.status());

    assertEquals(
        202,
        http.post("/v1/vms/ws-ahead/restart", null).status(),
        "a restart of what the API shows running");
  }

  @Test
  void theSweepStartsWhatWasLeftOwedByAHostThatDied() {
    owed("ws-orphan", Instant.now().minusSeconds(60));
    owed("ws-fresh", Instant.now());
    assertTrue(starter.sweep() >= 1);
    assertTrue(workflowExists("ws-orphan"));
    assertFalse(starter.owed("ws-orphan"));
    assertTrue(starter.owed("ws-fresh"), "a start owed a moment is its own host's to make");
  }

  /** Claims the VM's owed start until {@code until}, as another host about to make it does. */
  private void claimedElsewhere(String vm, Instant until) {
    tx.executeWrite(
        s -> {
          try (var update =
              s.getConnection()
                  .prepareStatement("UPDATE workflow_starts SET claimed_until = ? WHERE vm = ?")) {
            update.setObject(
                1, java.time.OffsetDateTime.ofInstant(until, java.time.ZoneOffset.UTC));
            update.setString(2, vm);
            return update.executeUpdate();
          }
        });
  }

  @Test
  void theSweepLeavesAStartAnotherHostIsMakingAndTakesItOnceTheClaimLapses() {
    owed("ws-claimed", Instant.now().minusSeconds(60));
    claimedElsewhere("ws-claimed", Instant.now().plusSeconds(60));
    starter.sweep();
    assertFalse(workflowExists("ws-claimed"), "another host is making it");
    assertTrue(starter.owed("ws-claimed"));

    claimedElsewhere("ws-claimed", Instant.now().minusSeconds(1));
    assertTrue(starter.sweep() >= 1);
    assertTrue(
        workflowExists("ws-claimed"),
        "that host's claim lapsed: it died, or Temporal did not answer");
    assertFalse(starter.owed("ws-claimed"));
  }

  /** A second host's starter, on the same database and Temporal. */
  private VmWorkflowStarter otherHost() {
    return new VmWorkflowStarter(
        workflows,
        starts,
        vms,
        tasks,
        certain,
        tx,
        java.time.Clock.systemUTC(),
        deadlines,
        new dev.rota.scheduler.settings.VmSettings(
            java.time.Duration.ofSeconds(15),
            java.time.Duration.ofMinutes(5),
            java.time.Duration.ofMillis(500)));
  }

  private String claimant(String vm) {
    return tx.executeRead(
        s -> {
          try (var query =
              s.getConnection()
                  .prepareStatement("SELECT claimed_by FROM workflow_starts WHERE vm = ?")) {
            query.setString(1, vm);
            try (var rows = query.executeQuery()) {
              return rows.next() ? rows.getString(1) : null;
            }
          }
        });
  }

  @Test
  void aStartWaitingForItsBurstIsClaimedSoThatAnotherHostsSweepLeavesIt() {
    VmRow vm = owed("ws-waiting", Instant.now());
    starter.startSoon(List.of(vm));
    eventually("its host claimed it as it waits", () -> claimant("ws-waiting") != null);
    tx.executeWrite(
        s -> {
          try (var backdate =
              s.getConnection()
                  .prepareStatement(
                      "UPDATE workflow_starts SET submitted_at = ? WHERE vm = 'ws-waiting'")) {
            backdate.setObject(
                1,
                java.time.OffsetDateTime.ofInstant(
                    Instant.now().minusSeconds(60), java.time.ZoneOffset.UTC));
            return backdate.executeUpdate();
          }
        });
    assertEquals(0, otherHost().sweep(), "its own host makes it once its VM runs or waits no more");
    assertFalse(workflowExists("ws-waiting"));
    assertTrue(starter.owed("ws-waiting"));
  }

  @Test
  void aVmWhoseTaskEndedBeforeItsWorkflowRanDoesNotWaitForItsBurst() {
    VmRow failed = owed("ws-failed-at-once", Instant.now());
    VmRow starting = owed("ws-still-starting", Instant.now());
    placed(failed, "w1");
    placed(starting, "w1");
    VmTaskRow task =
        tasks.findById(VmTaskRow.id(failed.seq(), "ws-failed-at-once.0")).orElseThrow();
    tx.executeWrite(
        s -> observations.reached(task, TaskState.FAILED, 1, "exited at once", Instant.now()));
    starter.startSoon(List.of(failed, starting));
    eventually(
        "the failed VM's workflow started, for its restart",
        () -> !starter.owed("ws-failed-at-once"));
    assertTrue(workflowExists("ws-failed-at-once"));
    assertTrue(starter.owed("ws-still-starting"), "its burst is still under way");
  }

  @Test
  void aUsersActionStartsAWorkflowAnotherHostHasClaimed() {
    owed("ws-claimed-act", Instant.now());
    claimedElsewhere("ws-claimed-act", Instant.now().plusSeconds(60));
    assertTrue(starter.startIfOwed("ws-claimed-act"), "the action waits for no other host");
    assertTrue(workflowExists("ws-claimed-act"));
  }

  @Test
  void aStartMadeBeforeForTheSameSubmissionIsDoneAndOneOfAClosingNamesakeStaysOwed() {
    VmRow vm = owed("ws-again", Instant.now());
    workflows.startVm(vm, false); // an earlier try, whose host died before taking the start out
    assertTrue(starter.startIfOwed("ws-again"));
    assertFalse(starter.owed("ws-again"));

    VmRow next = owed("ws-namesake", Instant.now());
    workflows.startVm(
        next.withSeq(next.seq() - 1_000_000), false); // as a deleted VM's workflow, still closing
    assertFalse(starter.startIfOwed("ws-namesake"));
    assertTrue(starter.owed("ws-namesake"), "started once that workflow has closed");
  }

  @Test
  void aStartOwedToAVmDeletedMeanwhileIsDropped() {
    VmRow vm = owed("ws-gone", Instant.now());
    tx.executeWrite(
        s -> {
          vms.deleteById(vm.name());
          return null;
        });
    assertFalse(starter.startIfOwed("ws-gone"));
    assertFalse(starter.owed("ws-gone"));
    assertFalse(workflowExists("ws-gone"));
  }

  @Test
  void aUserActionOrADeleteOnAVmWhoseWorkflowIsOwedStartsItFirst() {
    owed("ws-act", Instant.now());
    Http.Reply stop = http.post("/v1/vms/ws-act/stop", null);
    assertEquals(202, stop.status(), stop.toString());
    assertEquals("stopped", stop.map().get("status"));

    owed("ws-del", Instant.now());
    assertEquals(202, http.delete("/v1/vms/ws-del").status());
    eventually("the VM is gone", () -> http.get("/v1/vms/ws-del").status() == 404);
    assertFalse(starter.owed("ws-del"));
    assertEquals(0L, starts.owed("ws-del"));
  }
}
