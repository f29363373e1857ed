package dev.rota.workflows.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.workflows.Histories;
import dev.rota.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterWorkflowTest {
  private static final long INTERVAL_MILLIS = 5_000;

  private TestWorkflowEnvironment env;

  private RecordingClusterActivities start(long intervalMillis) {
    RecordingClusterActivities activities = new RecordingClusterActivities(intervalMillis);
    env = TemporalTestEnvironments.started(activities);
    activities.clock(env::currentTimeMillis);
    return activities;
  }

  /** Quiet terms stretch the wait from the interval up to {@code idleMillis}. */
  private RecordingClusterActivities startIdlingUpTo(long idleMillis) {
    RecordingClusterActivities activities = start(INTERVAL_MILLIS);
    activities.idleInterval(idleMillis);
    return activities;
  }

  /** Replays this test's history (and records it as {@code name} when asked to). */
  private void replay(String name) throws Exception {
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), ClusterWorkflow.WORKFLOW_ID, ClusterWorkflowImpl.class, name);
  }

  private ClusterWorkflow startCluster() {
    ClusterWorkflow cluster = newStub();
    WorkflowClient.start(cluster::run, ClusterState.initial());
    return cluster;
  }

  private ClusterWorkflow newStub() {
    return env.getWorkflowClient()
        .newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.startOptions().build());
  }

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void runsOneTermPerIntervalOnATimer() throws Exception {
    RecordingClusterActivities activities = start(INTERVAL_MILLIS);
    activities.placeInNext(Integer.MAX_VALUE);
    ClusterWorkflow cluster = startCluster();

    env.sleep(Duration.ofMillis(2 * INTERVAL_MILLIS + INTERVAL_MILLIS / 2));

    List<TermSummary> terms = activities.recorded();
    assertTrue(terms.size() >= 3, "terms at 0, 1 and 2 intervals, got " + terms);
    for (int i = 1; i < terms.size(); i++) {
      assertEquals(i + 1, terms.get(i).term());
      assertTrue(
          terms.get(i).startedAtMillis() - terms.get(i - 1).startedAtMillis() >= INTERVAL_MILLIS,
          "no term comes sooner than the interval without a wake-up: " + terms);
      assertFalse(terms.get(i).woken());
    }
    assertEquals(terms.get(terms.size() - 1).term(), cluster.lastTerm().term());
    // What the Temporal UI shows of each term: where it starts from, then what it did and the wait.
    List<String> summaries =
        Histories.summaries(env.getWorkflowClient(), ClusterWorkflow.WORKFLOW_ID);
    assertEquals("term 1: first look", summaries.get(0), summaries.toString());
    assertTrue(summaries.get(1).matches("term 1: .* — next in 5 s"), summaries.toString());
    assertTrue(summaries.get(2).matches("term 2: \\d+ waiting"), summaries.toString());
    replay("cluster-timer");
  }

  @Test
  void wakeUpsArrivingDuringATermAreCoalescedIntoOneEarlyTerm() throws Exception {
    RecordingClusterActivities activities = start(Duration.ofHours(1).toMillis());
    activities.holdObserve();
    ClusterWorkflow cluster = startCluster();
    assertTrue(activities.awaitFirstObserve());

    for (int i = 0; i < 5; i++) {
      cluster.wake("vm-" + i + " submitted");
    }
    activities.releaseObserve();
    env.sleep(Duration.ofMinutes(10));

    List<TermSummary> terms = activities.recorded();
    assertEquals(2, terms.size(), "the first term, then exactly one early term: " + terms);
    assertFalse(terms.get(0).woken());
    assertTrue(terms.get(1).woken());
    assertTrue(
        terms.get(1).startedAtMillis() - terms.get(0).startedAtMillis()
            < Duration.ofHours(1).toMillis(),
        "the woken term did not wait for the interval");
    // No timer followed the first term (the wake-up was waiting): the woken term's line tells it.
    List<String> summaries =
        Histories.summaries(env.getWorkflowClient(), ClusterWorkflow.WORKFLOW_ID);
    assertTrue(summaries.get(1).equals("term 2: woken, after term 1: quiet"), summaries.toString());
    replay("cluster-wake-told");
  }

  @Test
  void aWakeUpDuringTheWaitLeavesTheTimerToFireAndItStartsNoExtraTerm() throws Exception {
    long hour = Duration.ofHours(1).toMillis();
    RecordingClusterActivities activities = start(hour);
    activities.placeInNext(Integer.MAX_VALUE);
    ClusterWorkflow cluster = startCluster();
    env.sleep(Duration.ofMinutes(1));
    assertEquals(1, activities.recorded().size());
    cluster.wake("vm-a submitted");
    env.sleep(Duration.ofMinutes(1));
    assertEquals(2, activities.recorded().size(), "woken early");
    // The first wait's timer fires at one hour, the woken term's own at one hour and a minute.
    env.sleep(Duration.ofMinutes(150));

    List<TermSummary> terms = activities.recorded();
    for (int i = 2; i < terms.size(); i++) {
      assertTrue(
          terms.get(i).startedAtMillis() - terms.get(i - 1).startedAtMillis() >= hour,
          "a left timer firing started no term: " + terms);
    }
    assertEquals(4, terms.size(), terms.toString());
    var events = env.getWorkflowClient().fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents();
    assertTrue(
        events.stream()
            .noneMatch(
                e ->
                    e.getEventType()
                        == io.temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_CANCELED),
        "no timer is cancelled (the embedded server can refuse a cancel racing the timer)");
    assertTrue(
        events.stream()
                .filter(
                    e ->
                        e.getEventType()
                            == io.temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_FIRED)
                .count()
            >= 3);
    replay("cluster-timer-left-to-fire");
  }

  @Test
  void aTermThatLostRacesIsFollowedByAnotherAtOnceThreeTimesInARowAtMost() throws Exception {
    long hour = Duration.ofHours(1).toMillis();
    RecordingClusterActivities activities = start(hour);
    activities.loseRacesInNext(5);
    startCluster();
    env.sleep(Duration.ofMinutes(1));

    List<TermSummary> terms = activities.recorded();
    assertEquals(
        4,
        terms.size(),
        "the first term lost a race; the next three each came at once, the last of them losing"
            + " one too, and then the interval: "
            + terms);
    for (int i = 1; i < terms.size(); i++) {
      assertTrue(
          terms.get(i).startedAtMillis() - terms.get(i - 1).startedAtMillis()
              <= TermPace.MIN_WAIT.toMillis() + 1_000,
          "planned again at once: " + terms);
    }
    env.sleep(Duration.ofHours(1));
    assertEquals(5, activities.recorded().size(), "then one term an interval later");
  }

  @Test
  void aQuietClusterWaitsLongerAndLongerUpToTheIdleIntervalAndAWakeUpEndsIt() throws Exception {
    RecordingClusterActivities activities = startIdlingUpTo(30_000);
    ClusterWorkflow cluster = startCluster();
    env.sleep(Duration.ofMinutes(3));
    List<TermSummary> quiet = activities.recorded();
    // 5 s, then 10, 20, 30, 30, …: about 9 terms in 3 minutes instead of 36.
    assertTrue(quiet.size() <= 10, "quiet terms in 3 min: " + quiet.size());
    for (int i = 4; i < quiet.size(); i++) {
      assertTrue(
          quiet.get(i).startedAtMillis() - quiet.get(i - 1).startedAtMillis() >= 30_000,
          "capped at the idle interval");
    }
    int before = quiet.size();
    cluster.wake("new work");
    env.sleep(Duration.ofSeconds(1));
    assertEquals(before + 1, activities.recorded().size(), "a wake-up still brings a term at once");
    assertTrue(activities.recorded().get(before).woken());
    assertEquals(
        before + 1,
        activities.recorded().get(before).term(),
        "the woken term's number follows the quiet terms the workflow never saw");
    env.sleep(Duration.ofMinutes(1));
    assertTrue(
        activities.recorded().get(activities.recorded().size() - 1).startedAtMillis()
                - activities.recorded().get(before).startedAtMillis()
            >= INTERVAL_MILLIS,
        "after a woken quiet term the wait grows again from the interval");
    List<String> summaries =
        Histories.summaries(env.getWorkflowClient(), ClusterWorkflow.WORKFLOW_ID);
    assertTrue(
        summaries.contains("next term: woken, 0 waiting")
            && summaries.contains("term " + (before + 1) + ": quiet — next in 5 s"),
        "the woken term's activity cannot know its number; its timer tells it: " + summaries);
    replay("cluster-quiet-terms-woken");
  }

  @Test
  void quietTermsLeaveNoHistoryAndATermThatChangesSomethingIsToldWithItsNumber() throws Exception {
    RecordingClusterActivities activities = startIdlingUpTo(30_000);
    ClusterWorkflow cluster = startCluster();
    env.sleep(Duration.ofMinutes(10));

    int quiet = activities.recorded().size();
    assertTrue(quiet >= 20, "a term at 0, 5, 15, 35 s, then every 30 s: " + quiet);
    var client = env.getWorkflowClient();
    var events = client.fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents();
    assertTrue(
        events.size() <= 20,
        "quiet terms are attempts of one activity, recorded only when it ends: " + events.size());
    assertEquals(
        1,
        events.stream()
            .filter(
                e ->
                    e.getEventType() == io.temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_STARTED)
            .count(),
        "the first term is told, the quiet ones after it are not");

    activities.placeInNext(1);
    env.sleep(Duration.ofSeconds(31));
    TermSummary placed =
        activities.recorded().stream().filter(t -> t.decisions().placed() > 0).findFirst().get();
    assertEquals(quiet + 1, placed.term());
    assertEquals(placed, cluster.lastTerm(), "the workflow tells the term that changed something");
    assertTrue(
        Histories.summaries(client, ClusterWorkflow.WORKFLOW_ID)
            .contains("term " + placed.term() + ": placed 1 · 0 waiting — next in 5 s"),
        Histories.summaries(client, ClusterWorkflow.WORKFLOW_ID).toString());

    env.sleep(Duration.ofMinutes(10));
    var after = client.fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents();
    assertTrue(
        after.size() <= events.size() + 15,
        "one term that changed something, then quiet again: " + after.size());
    List<TermSummary> terms = activities.recorded();
    for (int i = 0; i < terms.size(); i++) {
      assertEquals(i + 1, terms.get(i).term(), "every term numbered, none twice: " + terms);
    }
    Histories.replayAndMaybeRecord(
        client, ClusterWorkflow.WORKFLOW_ID, ClusterWorkflowImpl.class, "cluster-quiet-terms");
  }

  @Test
  void aTermBeganWhenItsActivityBeganToObserveNotWhenItWasAskedFor() {
    RecordingClusterActivities activities = start(INTERVAL_MILLIS);
    activities.placeInNext(Integer.MAX_VALUE);
    activities.observeLateBy(7_000);
    ClusterWorkflow cluster = startCluster();

    env.sleep(Duration.ofMillis(INTERVAL_MILLIS / 2));

    TermStart asked = activities.asked().get(0);
    TermSummary told = cluster.lastTerm();
    assertEquals(asked.term(), told.term());
    assertEquals(
        asked.startedAtMillis() + 7_000,
        told.startedAtMillis(),
        "a term held up (by a host's pollers, or Temporal away) is told from when it ran");
    assertTrue(told.durationMillis() >= 0);
  }

  @Test
  void secondStartWithUseExistingJoinsTheRunningScheduler() {
    start(INTERVAL_MILLIS);
    ClusterWorkflow first = startCluster();
    String firstRun = WorkflowStub.fromTyped(first).getExecution().getRunId();

    ClusterWorkflow second = newStub();
    String secondRun = WorkflowClient.start(second::run, ClusterState.initial()).getRunId();

    assertEquals(firstRun, secondRun, "one open run per id is the leader election");
  }

  @Test
  void continuesAsNewWithABoundedHistoryAndKeepsCounting() {
    RecordingClusterActivities activities = start(1_000);
    activities.placeInNext(Integer.MAX_VALUE);
    ClusterWorkflow cluster = startCluster();
    String firstRun = WorkflowStub.fromTyped(cluster).getExecution().getRunId();

    env.sleep(Duration.ofMinutes(6));

    List<TermSummary> terms = activities.recorded();
    assertTrue(
        terms.size() > 300, "enough terms to pass the per-run history bound: " + terms.size());
    for (int i = 0; i < terms.size(); i++) {
      assertEquals(i + 1, terms.get(i).term(), "term numbers continue across runs");
    }
    var client = env.getWorkflowClient();
    String currentRun =
        client
            .newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID)
            .describe()
            .getExecution()
            .getRunId();
    assertNotEquals(firstRun, currentRun, "the workflow continued as new");
    int events = client.fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents().size();
    assertTrue(
        events <= ClusterWorkflowImpl.HISTORY_EVENTS_PER_RUN + 50,
        "the current run's history stays bounded: " + events);
    // The server goes on running terms while the test reads: the query's last term is one recorded
    // since the snapshot above, not necessarily its last.
    long queried =
        client
            .newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID)
            .lastTerm()
            .term();
    List<TermSummary> since = activities.recorded();
    assertTrue(
        queried >= terms.get(terms.size() - 1).term()
            && queried <= since.get(since.size() - 1).term(),
        "the carried summary is the latest term: " + queried);
    assertEquals(
        TaskQueues.SCHEDULER, taskQueue(currentRun), "the next run stays on the scheduler's queue");
  }

  private String taskQueue(String runId) {
    var execution =
        io.temporal.api.common.v1.WorkflowExecution.newBuilder()
            .setWorkflowId(ClusterWorkflow.WORKFLOW_ID)
            .setRunId(runId)
            .build();
    return env.getWorkflowClient()
        .getWorkflowServiceStubs()
        .blockingStub()
        .describeWorkflowExecution(
            io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace(env.getNamespace())
                .setExecution(execution)
                .build())
        .getExecutionConfig()
        .getTaskQueue()
        .getName();
  }
}
