package dev.rota.scheduler.term;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.scheduling.Move;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.store.GroupCommit;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.test.annotation.MockBean;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** What a task report leaves behind when the VM's workflow can, or cannot, be told at once. */
@MicronautTest(transactional = false)
class TaskReportsTest {
  @Inject TaskReports reports;
  @Inject WorkerRepository workers;
  @Inject VmRepository vms;
  @Inject dev.rota.store.VmEventRepository events;
  @Inject OutboxRepository actions;
  @Inject TaskObservations observations;
  @Inject dev.rota.store.VmTaskRepository tasks;
  @Inject io.micronaut.transaction.TransactionOperations<java.sql.Connection> tx;
  @Inject GroupCommit commits;
  @Inject ActionApplier applier;
  @Inject NewsBeingTold beingTold;
  @Inject dev.rota.store.VmEventRepository vmEvents;
  @Inject TermSnapshotReader reader;
  @Inject dev.rota.store.WorkflowStartRepository starts;

  @Inject
  @jakarta.inject.Named(AgentCalls.REPORTED_NEWS)
  java.util.concurrent.ExecutorService telling;

  /**
   * What the fakes below see and do. A bean of its own, not the test's fields: the fakes are made
   * anew for each test, by whichever thread reaches them first, and one made for a test from
   * another test's instance would not see this test's VMs.
   */
  @jakarta.inject.Singleton
  static class Fakes {
    /**
     * VMs whose workflow cannot be reached (Temporal down, this host dying): their notify throws.
     */
    final Set<String> unreachable = ConcurrentHashMap.newKeySet();

    final Set<String> told = ConcurrentHashMap.newKeySet();

    /** Every telling, in order, twice if told twice. */
    final List<String> tellings = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Run once, as the VM is told: what happens meanwhile on other threads. */
    final Map<String, Runnable> whileTelling = new ConcurrentHashMap<>();

    final List<String> wakes = new java.util.concurrent.CopyOnWriteArrayList<>();
  }

  @Inject Fakes fakes;

  private Set<String> unreachable;
  private Set<String> told;
  private List<String> tellings;
  private Map<String, Runnable> whileTelling;
  private List<String> wakes;

  @org.junit.jupiter.api.BeforeEach
  void seeTheFakes() {
    unreachable = fakes.unreachable;
    told = fakes.told;
    tellings = fakes.tellings;
    whileTelling = fakes.whileTelling;
    wakes = fakes.wakes;
    wakes.clear(); // tests count the wakes they cause; VM names are each test's own
  }

  @MockBean(dev.rota.scheduler.SchedulerWaker.class)
  dev.rota.scheduler.SchedulerWaker waker(VmRepository vms, Fakes fakes) {
    return new dev.rota.scheduler.SchedulerWaker(null, null, null, null, vms) {
      @Override
      public void wake(String reason) {
        fakes.wakes.add(reason);
      }
    };
  }

  @MockBean(VmNotifier.class)
  VmNotifier notifier(dev.rota.store.WorkflowStartRepository starts, Fakes fakes) {
    return new VmNotifier(null, null, null, starts, null) {
      @Override
      public List<Long> notify(OutboxRow news) {
        if (fakes.unreachable.contains(news.vm())) {
          throw new IllegalStateException("Temporal unreachable");
        }
        Runnable meanwhile = fakes.whileTelling.remove(news.vm());
        if (meanwhile != null) {
          meanwhile.run();
        }
        fakes.told.add(news.vm() + " " + news.event());
        fakes.tellings.add(news.vm() + " " + news.event());
        return List.of(news.id());
      }
    };
  }

  /**
   * A report's VMs are told on threads of their own, after the report was answered. A telling still
   * going on when a test ends would reach the next test's fakes (its notifier is made anew for each
   * test), or this one's, with that test's VMs unknown to them: each test waits for its own.
   */
  @org.junit.jupiter.api.AfterEach
  void tellingsOver() throws Exception {
    // Taken in order: once every telling thread holds one of these at once, all that came before
    // them has run.
    int threads = AgentCalls.REPORTED_NEWS_THREADS;
    java.util.concurrent.CyclicBarrier allThreads = new java.util.concurrent.CyclicBarrier(threads);
    List<java.util.concurrent.Callable<Integer>> meetings = new java.util.ArrayList<>();
    for (int i = 0; i < threads; i++) {
      meetings.add(() -> allThreads.await(60, java.util.concurrent.TimeUnit.SECONDS));
    }
    for (java.util.concurrent.Future<Integer> met : telling.invokeAll(meetings)) {
      met.get();
    }
  }

  /** Submitted and placed, the placement's start and news already carried out. */
  private void placed(String vm, String worker) {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    VmRow row = dev.rota.store.StoreFixtures.submitted(vms, vm, 1, dev.rota.store.StoreFixtures.T0);
    assertEquals(
        1,
        tx.executeWrite(
                s ->
                    observations.placeAll(
                        List.of(new TaskObservations.Placing(vm, row.seq(), 0, worker, null)), now))
            .size());
    actions.after(0, 10_000).stream()
        .filter(a -> vm.equals(a.vm()))
        .forEach(a -> actions.done(a.id()));
  }

  private void registered(String worker) {
    workers.save(
        WorkerRow.registered(
            worker,
            "http://127.0.0.1:1",
            Map.of("cpu", 4L),
            Map.of(),
            List.of("process"),
            null,
            "ready",
            "ready",
            Instant.parse("2026-01-01T00:00:00Z")));
  }

  private List<OutboxRow> notificationsFor(String vm) {
    return actions.after(0, 10_000).stream()
        .filter(a -> a.kind().equals(OutboxRow.NOTIFY) && vm.equals(a.vm()))
        .toList();
  }

  private String taskState(String vm) {
    VmRow row = vms.findById(vm).orElseThrow();
    return tasks.findById(VmTaskRow.id(row.seq(), vm + ".0")).orElseThrow().state();
  }

  @Test
  void aStartReportedAfterTheAgentsWereAskedIsNotFoundVanishedFromTheirLists() {
    registered("tr-ask");
    placed("tr-before", "tr-ask");
    placed("tr-after", "tr-ask");
    Instant asked = Instant.parse("2026-01-01T00:01:00Z");
    // One start recorded well before the agent was asked, one after (its start call answered late
    // and the agent reported it itself): the agent's list, asked at `asked`, holds neither.
    assertEquals(
        1,
        tasks.started(
            VmTaskRow.id(seq("tr-before"), "tr-before.0"), asked.minusSeconds(5), "started"));
    assertEquals(
        1,
        tasks.started(
            VmTaskRow.id(seq("tr-after"), "tr-after.0"), asked.plusMillis(300), "started"));
    assertEquals(1, workers.probeAnswered("tr-ask", asked));

    TermSnapshot snapshot = reader.read(asked.plusSeconds(1), asked);
    dev.rota.core.scheduling.Reconciliation r =
        dev.rota.core.scheduling.Reconciler.reconcile(
            snapshot.vms(),
            List.copyOf(snapshot.taskRows().keySet()),
            snapshot.reported(),
            Set.of());

    Map<String, dev.rota.core.model.TaskState> found = new java.util.HashMap<>();
    r.transitions().forEach(t -> found.put(t.task().vm(), t.to()));
    assertEquals(
        dev.rota.core.model.TaskState.VANISHED,
        found.get("tr-before"),
        "running before the agent was asked, and not in its list: vanished");
    assertFalse(
        found.containsKey("tr-after"),
        "started after the list was made: the next term's list speaks for it");
  }

  private long seq(String vm) {
    return vms.findById(vm).orElseThrow().seq();
  }

  @Test
  void aReportOfATaskOfAnotherSubmissionOfTheVmsNameChangesNothing() {
    registered("tr-sub");
    placed("tr-again", "tr-sub");
    String before = taskState("tr-again");
    // The task a VM deleted under this name left on the worker, reported by its agent.
    assertEquals(
        Optional.of(0),
        reports.accept(
            "tr-sub",
            List.of(new ObservedTask("tr-again.0", "exited", 0, "removed", seq("tr-again") - 1))));
    assertEquals(before, taskState("tr-again"));
    assertEquals(
        Optional.of(1),
        reports.accept(
            "tr-sub",
            List.of(new ObservedTask("tr-again.0", "running", null, null, seq("tr-again")))),
        "its own is heard");
  }

  @Test
  void aReportOfATaskCarryingAPoolReplicasNameReachesTheVmClaimedAsIt() {
    registered("tr-pool");
    // tr-claimed's tasks carry the name of the pool replica it was claimed as; a VM since
    // submitted under that name is another submission.
    VmRow claimed =
        vms.save(
            VmRow.replica(
                "tr-claimed",
                vms.nextSeq(),
                dev.rota.store.StoreFixtures.submitted(vms, "tr-replica", 1, Instant.EPOCH).spec(),
                new dev.rota.store.VmSetMembership(null, null, "tr-replica", "tr", false, null),
                "waiting",
                Instant.EPOCH));
    assertEquals("tr-replica", claimed.taskName());
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    tx.executeWrite(
        s ->
            observations.placeAll(
                List.of(
                    new TaskObservations.Placing(
                        "tr-claimed", claimed.seq(), 0, "tr-pool", null, "tr-replica")),
                now));
    assertEquals(
        Optional.of(1),
        reports.accept(
            "tr-pool",
            List.of(new ObservedTask("tr-replica.0", "running", null, null, claimed.seq()))));
    assertEquals(
        "running",
        tasks.findById(VmTaskRow.id(claimed.seq(), "tr-replica.0")).orElseThrow().state());
    assertEquals(
        "tr-claimed",
        tasks.findById(VmTaskRow.id(claimed.seq(), "tr-replica.0")).orElseThrow().vm());
    assertEquals(
        List.of("tr-claimed"),
        vms.ofTasksNamed(List.of("tr-replica")).stream()
            .filter(v -> v.seq() == claimed.seq())
            .map(VmRow::name)
            .toList());
    assertEquals(
        java.util.Set.of("tr-claimed", "tr-replica"),
        new java.util.HashSet<>(
            vms.ofTasksNamed(List.of("tr-replica")).stream().map(VmRow::name).toList()),
        "both carry it: the claimed one by its replica's name, the other by its own");
    assertEquals("pending", vms.findById("tr-replica").orElseThrow().state().status());
  }

  @Test
  void aStartingTasksProgressIsItsVmsMessageAndAnEventOnceEachAndNothingElseChanges() {
    registered("tr-p");
    registered("tr-q");
    placed("tr-pull", "tr-p");
    int before = notificationsFor("tr-pull").size();
    String stateBefore = taskState("tr-pull");

    reports.accept(
        "tr-p",
        List.of(new ObservedTask("tr-pull.0", "starting", null, "pulling 40% of 2048 MiB")));
    reports.accept(
        "tr-p",
        List.of(new ObservedTask("tr-pull.0", "starting", null, "pulling 40% of 2048 MiB")));
    reports.accept(
        "tr-q",
        List.of(new ObservedTask("tr-pull.0", "starting", null, "pulling 90% of 2048 MiB")));

    VmRow vm = vms.findById("tr-pull").orElseThrow();
    assertEquals(
        "pulling 40% of 2048 MiB",
        vm.state().statusMessage(), "the worker it is placed on says how it gets on");
    assertEquals("pending", vm.state().status(), "progress is no change of state");
    assertEquals(
        List.of("pulling 40% of 2048 MiB on tr-p"),
        vmEvents.page("tr-pull", 0, 100).stream()
            .filter(e -> e.type().equals("starting"))
            .map(dev.rota.store.VmEventRow::message)
            .toList(),
        "once, though told twice");
    assertEquals(before, notificationsFor("tr-pull").size(), "no news for its workflow");
    assertEquals(stateBefore, taskState("tr-pull"), "nor for the scheduler's record of the task");
  }

  @Test
  void aVmWhoseWorkflowCannotBeToldNowIsLeftInTheOutboxForTheScheduler() {
    registered("tr-w");
    placed("tr-told", "tr-w");
    placed("tr-later", "tr-w");
    unreachable.add("tr-later");

    int changed =
        reports
            .accept(
                "tr-w",
                List.of(
                    new ObservedTask("tr-told.0", "running", null, null),
                    new ObservedTask("tr-later.0", "exited", 2, "exited with code 2"),
                    new ObservedTask("stray.0", "running", null, null)))
            .orElseThrow();

    assertEquals(2, changed, "both tasks changed; a task no VM owns changes nothing");
    assertEquals("running", taskState("tr-told"));
    assertEquals("exited", taskState("tr-later"));
    VmRow toldVm = vms.findById("tr-told").orElseThrow();
    assertEquals(
        "running",
        toldVm.state().status(),
        "the agent's word: the read model need not wait for the workflow");
    assertEquals("tr-w", toldVm.state().worker());
    assertEquals(
        "pending",
        vms.findById("tr-later").orElseThrow().state().status(),
        "an end is the workflow's to judge");
    // Told right after the report was answered, the told news' removal queued without a wait.
    eventually(
        "tr-told told and taken out of the outbox",
        () -> told.contains("tr-told started") && notificationsFor("tr-told").isEmpty());
    eventually(
        "the scheduler woken for tr-later",
        () -> wakes.contains("task reports from tr-w left notifications in the outbox"));
    List<OutboxRow> left = notificationsFor("tr-later");
    assertEquals(1, left.size(), "not told: the scheduler's apply will tell it");
    assertEquals("exited", left.get(0).event());
    assertEquals(2, left.get(0).exitCode());
    assertEquals("task tr-later.0 exited with code 2", left.get(0).detail());
    assertEquals(
        1,
        wakes.stream().filter(w -> w.contains("outbox")).count(),
        "and the scheduler is woken once to do so: " + wakes);
  }

  @Test
  void
      aStartIsInTheReadModelAsTheWorkflowWillRecordItAndNeitherItsEarlierNewsNorItsOwnDecisionIsOverwritten() {
    registered("tr-w2");
    placed("tr-runs", "tr-w2");
    placed("tr-stopped", "tr-w2");
    vms.recordStatus("tr-stopped", 0, "stopping", "stopping: by request");
    unreachable.add("tr-runs"); // its news stays in the outbox, where the test reads it

    reports.accept(
        "tr-w2",
        List.of(
            new ObservedTask("tr-runs.0", "running", null, "up"),
            new ObservedTask("tr-stopped.0", "running", null, null)));

    VmRow runs = vms.findById("tr-runs").orElseThrow();
    OutboxRow started =
        actions.after(0, 10_000).stream()
            .filter(a -> "tr-runs".equals(a.vm()) && "started".equals(a.event()))
            .findFirst()
            .orElseThrow();
    assertEquals("running", runs.state().status());
    assertEquals(
        started.id(), runs.state().taskEventId(), "the event the workflow will hear it by");
    assertEquals(started.createdAt().toEpochMilli(), runs.state().startedAt().toEpochMilli());
    assertEquals(
        0,
        runs.state().startedAt().getNano() % 1_000_000,
        "to the millisecond, as the workflow records it");
    assertEquals(started.detail(), runs.state().statusMessage(), "the message it will hear");
    assertEquals(
        "stopping",
        vms.findById("tr-stopped").orElseThrow().state().status(),
        "the workflow's decision stands");

    assertEquals(
        0,
        vms.recordLifecycle(
            "tr-runs",
            0,
            0,
            "scheduled",
            "tr-w2",
            "scheduled",
            null,
            started.id() - 1,
            runs.state().scheduledAt(),
            null,
            null),
        "the workflow hearing of the placement late changes nothing");
    assertEquals(
        0,
        vms.recordLifecycle(
            "tr-runs",
            0,
            0,
            "running",
            "tr-w2",
            started.detail(),
            null,
            started.id(),
            runs.state().scheduledAt(),
            runs.state().startedAt(),
            null),
        "its record of the start is there already");
    assertEquals(runs.version(), vms.findById("tr-runs").orElseThrow().version());
  }

  @Test
  void aRunningTasksReadinessIsItsVmsAndAnEventEachTimeItChanges() {
    registered("tr-r");
    placed("tr-ready", "tr-r");
    java.time.Instant since = java.time.Instant.parse("2026-11-28T10:00:00Z");
    ObservedTask notYet =
        new ObservedTask(
            "tr-ready.0", "running", null, null, null, new ObservedTask.Readiness(null, null));
    ObservedTask ready =
        new ObservedTask(
            "tr-ready.0", "running", null, null, null, new ObservedTask.Readiness(since, null));
    ObservedTask failing =
        new ObservedTask(
            "tr-ready.0",
            "running",
            null,
            null,
            null,
            new ObservedTask.Readiness(null, "readiness check tcp on port ssh: refused"));
    reports.accept("tr-r", List.of(notYet));
    assertEquals(
        new dev.rota.store.VmReadiness(0, null, null),
        vms.findById("tr-ready").orElseThrow().readiness(),
        "its first report both starts it and says it is not ready yet");
    reports.accept("tr-r", List.of(ready));
    reports.accept("tr-r", List.of(ready));
    assertEquals(
        new dev.rota.store.VmReadiness(0, since, null),
        vms.findById("tr-ready").orElseThrow().readiness());
    reports.accept("tr-r", List.of(failing));
    reports.accept("tr-other", List.of(ready));
    assertEquals(
        new dev.rota.store.VmReadiness(0, null, "readiness check tcp on port ssh: refused"),
        vms.findById("tr-ready").orElseThrow().readiness(),
        "another worker's word changes nothing");
    reports.accept("tr-r", List.of(ready));
    reports.accept("tr-r", List.of(notYet));
    List<String> changes =
        List.of(
            "ready: its readiness check passes on tr-r",
            "not-ready: readiness check tcp on port ssh: refused",
            "ready: its readiness check passes on tr-r",
            "not-ready: its readiness check no longer passes");
    assertEquals(
        changes,
        vmEvents.page("tr-ready", 0, 100).stream()
            .filter(e -> e.type().endsWith("ready"))
            .map(e -> e.type() + ": " + e.message())
            .toList(),
        "an event each time it changed, none for the same word twice");
    // Its workflow is told each change, which its summary shows (told on threads of their own, in
    // any order, and taken out of the outbox once told: the tellings are over before the next
    // test).
    eventually(
        "its workflow told of each change, and the news taken out of the outbox",
        () ->
            tellings.stream().filter(t -> t.startsWith("tr-ready ")).count() >= 5
                && notificationsFor("tr-ready").isEmpty());
    assertEquals(
        List.of(
            "tr-ready not-ready",
            "tr-ready not-ready",
            "tr-ready ready",
            "tr-ready ready",
            "tr-ready started"),
        tellings.stream().filter(t -> t.startsWith("tr-ready ")).sorted().toList());
  }

  @Test
  void aStartTheReadModelShowsIsToldAsRecordedSoThatItsWorkflowNeedNotRecordItAgain() {
    registered("tr-w5");
    placed("tr-shown", "tr-w5");
    unreachable.add("tr-shown");
    reports.accept("tr-w5", List.of(new ObservedTask("tr-shown.0", "running", null, null)));
    OutboxRow started =
        actions.after(0, 10_000).stream()
            .filter(a -> "tr-shown".equals(a.vm()) && "started".equals(a.event()))
            .findFirst()
            .orElseThrow();

    List<dev.rota.workflows.vm.TaskEvent> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    VmNotifier notifier =
        new VmNotifier(
            new dev.rota.scheduler.temporal.WorkflowStubs(() -> workflowsHearingInto(heard)),
            vms,
            actions,
            starts,
            new dev.rota.scheduler.temporal.TemporalDeadlines());
    notifier.notify(started);
    vms.requeue(
        "tr-shown",
        0,
        1,
        "restarted",
        null,
        java.time.Instant.now(),
        null); // what its workflow would do next, were the task to end
    notifier.notify(started);

    assertEquals(2, heard.size(), heard.toString());
    assertTrue(heard.get(0).recorded(), "the row shows this start: its event id, running");
    assertFalse(heard.get(1).recorded(), "a row that has moved on since does not");
  }

  /** A Temporal client whose VM workflows put what they are told into {@code heard}. */
  @SuppressWarnings("unchecked")
  private static io.temporal.client.WorkflowClient workflowsHearingInto(
      List<dev.rota.workflows.vm.TaskEvent> heard) {
    dev.rota.workflows.vm.VmWorkflow vm =
        (dev.rota.workflows.vm.VmWorkflow)
            java.lang.reflect.Proxy.newProxyInstance(
                TaskReportsTest.class.getClassLoader(),
                new Class<?>[] {dev.rota.workflows.vm.VmWorkflow.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "taskEvent" -> heard.add((dev.rota.workflows.vm.TaskEvent) args[0]);
                    case "taskEvents" ->
                        heard.addAll((List<dev.rota.workflows.vm.TaskEvent>) args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                  }
                  return null;
                });
    return (io.temporal.client.WorkflowClient)
        java.lang.reflect.Proxy.newProxyInstance(
            TaskReportsTest.class.getClassLoader(),
            new Class<?>[] {io.temporal.client.WorkflowClient.class},
            (proxy, method, args) -> {
              if (method.getName().equals("newWorkflowStub")
                  && args.length == 2
                  && args[1] instanceof String) {
                return vm;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  @Test
  void aFailedOverVmRunsInTheReadModelOnItsNewWorkersReportButAMovedOneIsLeftToItsWorkflow() {
    registered("tr-w3");
    registered("tr-w4");
    placed("tr-fo", "tr-w3");
    placed("tr-mv", "tr-w3");
    reports.accept(
        "tr-w3",
        List.of(
            new ObservedTask("tr-fo.0", "running", null, null),
            new ObservedTask("tr-mv.0", "running", null, null)));
    // To the millisecond, as it is compared: the database may round a finer one up.
    Instant later = Instant.now().plusSeconds(60).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    tx.executeWrite(
        s -> {
          observations.failOverAll(
              List.of(
                  new TermPlan.Failover(
                      "tr-fo",
                      vms.findById("tr-fo").orElseThrow().seq(),
                      0,
                      "tr-w3",
                      "tr-w4",
                      "tr-w3 went offline")),
              vm -> vm,
              later);
          return observations.moveAll(
              List.of(
                  new Move(
                      "tr-mv",
                      vms.findById("tr-mv").orElseThrow().seq(),
                      0,
                      "tr-w3",
                      "tr-w4",
                      "spread")),
              vm -> vm,
              later);
        });
    VmRow movingBefore = vms.findById("tr-mv").orElseThrow();
    assertEquals("tr-w3", movingBefore.notes().movingFrom(), "the move under way");

    reports.accept(
        "tr-w4",
        List.of(
            new ObservedTask("tr-fo.1", "running", null, null),
            new ObservedTask("tr-mv.1", "running", null, null)));

    VmRow failedOver = vms.findById("tr-fo").orElseThrow();
    assertEquals("running", failedOver.state().status());
    assertEquals(1, failedOver.state().restartCount());
    assertEquals(
        "tr-w4",
        failedOver.state().worker(),
        "running on its new worker, as its workflow will say");
    assertEquals(
        later.toEpochMilli(),
        failedOver.state().scheduledAt().toEpochMilli(),
        "placed there by the failover");
    VmRow moved = vms.findById("tr-mv").orElseThrow();
    assertEquals("tr-w3", moved.state().worker(), "a move's end is its workflow's to record");
    assertEquals(movingBefore.state().taskEventId(), moved.state().taskEventId());
    assertEquals(null, moved.notes().movingFrom(), "though its old copy is no longer kept");
    assertEquals(
        List.of("tr-w3 tr-mv.0"),
        actions.after(0, 100_000).stream()
            .filter(a -> a.kind().equals(OutboxRow.REMOVE) && "tr-mv.0".equals(a.taskId()))
            .map(a -> a.worker() + " " + a.taskId())
            .toList(),
        "its old copy is removed from the worker it moved from, once");
  }

  /**
   * A running dev box on {@code worker}, whose persistent disk is there, being moved live to {@code
   * to}.
   */
  private long liveOn(String vm, String worker, String to) {
    VmRow row =
        vms.save(
            VmRow.submitted(
                vm,
                vms.nextSeq(),
                dev.rota.store.StoreFixtures.qemu(true, List.of(), dev.rota.store.VmTemplate.LIVE),
                "waiting",
                dev.rota.store.StoreFixtures.T0));
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    tx.executeWrite(
        s ->
            observations.placeAll(
                List.of(new TaskObservations.Placing(vm, row.seq(), 0, worker, null)), now));
    vms.diskOn(vm, row.seq(), worker);
    reports.accept(worker, List.of(new ObservedTask(vm + ".0", "running", null, null)));
    tx.executeWrite(
        s ->
            observations.moveAll(
                List.of(new Move(vm, row.seq(), 0, worker, to, "draining")), v -> v, now));
    actions.after(0, 100_000).stream()
        .filter(a -> vm.equals(a.vm()))
        .forEach(a -> actions.done(a.id()));
    return row.seq();
  }

  @Test
  void aLiveMoveTakesItsDiskAlongAndAFailedOneLeavesTheVmWhereItRan() {
    registered("tr-lw1");
    registered("tr-lw2");
    liveOn("tr-lv", "tr-lw1", "tr-lw2");
    VmRow moving = vms.findById("tr-lv").orElseThrow();
    assertEquals("tr-lw1", moving.notes().movingFrom());
    assertEquals("tr-lw2", moving.notes().diskOn(), "its new copy pulls the disk");
    assertEquals("tr-lw1", moving.notes().diskFrom(), "from where it runs now");

    reports.accept(
        "tr-lw2",
        List.of(new ObservedTask("tr-lv.1", "failed", null, "the VM did not arrive: refused")));

    VmRow stayed = vms.findById("tr-lv").orElseThrow();
    assertEquals(0, stayed.state().restartCount(), "back at the generation that runs");
    assertEquals("tr-lw1", stayed.state().worker());
    assertEquals("running", stayed.state().status());
    assertEquals(null, stayed.notes().movingFrom());
    assertEquals("tr-lw1", stayed.notes().diskOn(), "its disk is where it runs");
    assertEquals(null, stayed.notes().diskFrom());
    assertEquals("tr-lw2", stayed.notes().avoidWorker(), "not tried there again at once");
    // What its workflow is told (the outbox's news, carried out at once here) its log says too.
    List<dev.rota.store.VmEventRow> log = events.page("tr-lv", 0, 100);
    dev.rota.store.VmEventRow last = log.get(log.size() - 1);
    assertEquals("move-failed", last.type());
    assertTrue(last.message().contains("refused"), last.message());
    assertTrue(
        actions.after(0, 100_000).stream()
            .noneMatch(a -> a.kind().equals(OutboxRow.REMOVE) && "tr-lv.0".equals(a.taskId())),
        "the guest still runs in its old task");
  }

  @Test
  void aLiveMoveThatArrivedLeavesTheDiskOnlyOnItsNewWorker() {
    registered("tr-lw3");
    registered("tr-lw4");
    liveOn("tr-lm", "tr-lw3", "tr-lw4");
    reports.accept("tr-lw4", List.of(new ObservedTask("tr-lm.1", "running", null, null)));
    VmRow moved = vms.findById("tr-lm").orElseThrow();
    assertEquals("tr-lw4", moved.notes().diskOn());
    assertEquals(null, moved.notes().diskFrom(), "the old worker's copy is no longer kept");
    assertEquals(null, moved.notes().movingFrom());
  }

  @Test
  void aReportFromAWorkerNotRegisteredChangesNothingAndSaysSoSoThatItsAgentRegistersAgain() {
    placed("tr-orphan", "tr-w0");
    assertTrue(
        reports
            .accept("tr-nobody", List.of(new ObservedTask("tr-orphan.0", "running", null, null)))
            .isEmpty());
    assertEquals("scheduled", taskState("tr-orphan"));
  }

  @Test
  void newsOfAVmWhoseWorkflowIsStillToBeStartedIsLeftForItsStartWithoutAskingTemporal() {
    registered("tr-w9");
    placed("tr-owed", "tr-w9");
    placed("tr-open", "tr-w9");
    starts.add("tr-owed", seq("tr-owed"), Instant.parse("2026-01-01T00:00:00Z"));

    reports.accept(
        "tr-w9",
        List.of(
            new ObservedTask("tr-owed.0", "running", null, null),
            new ObservedTask("tr-open.0", "running", null, null)));
    OutboxRow owed = notificationsFor("tr-owed").get(0);
    eventually(
        "the open workflow told, and its news taken out of the outbox",
        () -> told.contains("tr-open started") && notificationsFor("tr-open").isEmpty());
    eventually("the owed start's news released", () -> !beingTold.held(owed.id()));

    assertFalse(
        tellings.stream().anyMatch(t -> t.startsWith("tr-owed ")),
        "its start hands the workflow the row, which shows the news: " + tellings);
    assertEquals(
        List.of(owed.id()),
        notificationsFor("tr-owed").stream().map(OutboxRow::id).toList(),
        "the news stays, for the start to take along or the scheduler to tell after it");
    assertTrue(wakes.isEmpty(), "nothing was left for the scheduler: " + wakes);

    applier.apply();
    assertFalse(
        tellings.stream().anyMatch(t -> t.startsWith("tr-owed ")),
        "nor does the scheduler's pass tell it while the start is owed: " + tellings);
    assertEquals(1, notificationsFor("tr-owed").size());
  }

  @Test
  void newsAReportIsTellingIsLeftToItByTheSchedulersPassUntilItsRemovalHasCommitted() {
    registered("tr-w6");
    placed("tr-held", "tr-w6");
    placed("tr-unheard", "tr-w6");
    unreachable.add("tr-unheard");
    List<Integer> toldByAPassMeanwhile = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicLong heldId = new java.util.concurrent.atomic.AtomicLong();
    whileTelling.put(
        "tr-held",
        () -> {
          // A term's apply pass, between the report's commit and its telling: the news is in the
          // outbox.
          heldId.set(notificationsFor("tr-held").get(0).id());
          applier.apply();
          toldByAPassMeanwhile.add(
              (int) tellings.stream().filter(t -> t.startsWith("tr-held ")).count());
        });

    reports.accept(
        "tr-w6",
        List.of(
            new ObservedTask("tr-held.0", "running", null, null),
            new ObservedTask("tr-unheard.0", "running", null, null)));
    OutboxRow unheard = notificationsFor("tr-unheard").get(0);
    eventually(
        "the report's news told, and taken out of the outbox",
        () ->
            !toldByAPassMeanwhile.isEmpty()
                && notificationsFor("tr-held").isEmpty()
                && !beingTold.held(heldId.get()));
    assertFalse(beingTold.held(unheard.id()), "not told: the scheduler's to tell");

    assertEquals(List.of(0), toldByAPassMeanwhile, "the pass left tr-held's news to the report");
    assertEquals(
        List.of("tr-held started"),
        tellings.stream().filter(t -> t.startsWith("tr-held ")).toList(),
        "told once");
    applier.apply();
    assertEquals(
        List.of("tr-held started"),
        tellings.stream().filter(t -> t.startsWith("tr-held ")).toList(),
        "its removal committed, nothing is left to tell");
  }

  @Test
  void aStartsLogLineComesWithoutATrimAndTheTasksEndTrimsTheLogToWhatItKeeps() {
    registered("tr-w7");
    placed("tr-log", "tr-w7");
    for (int i = 0; i < dev.rota.store.VmEventRepository.KEPT_PER_VM + 10; i++) {
      vmEvents.insert("tr-log", Instant.parse("2026-01-01T00:00:00Z"), "note", "a long life " + i);
    }
    int before = vmEvents.page("tr-log", 0, 5_000).size();

    reports.accept("tr-w7", List.of(new ObservedTask("tr-log.0", "running", null, null)));
    assertEquals(
        before + 1,
        vmEvents.page("tr-log", 0, 5_000).size(),
        "a start's line is written without a trim");
    reports.accept("tr-w7", List.of(new ObservedTask("tr-log.0", "exited", 0, null)));
    List<dev.rota.store.VmEventRow> kept = vmEvents.page("tr-log", 0, 5_000);
    assertEquals(dev.rota.store.VmEventRepository.KEPT_PER_VM, kept.size());
    assertEquals(
        List.of("started", "exited"),
        kept.subList(kept.size() - 2, kept.size()).stream()
            .map(dev.rota.store.VmEventRow::type)
            .toList());
  }
}
