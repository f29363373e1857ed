package dev.rota.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The VM lifecycle's rules, as tables: what its workflow does with each action and event. */
class VmLifecycleRulesTest {
  private static VmStatus status(String wire) {
    return WireName.parse(VmStatus.class, wire).orElseThrow();
  }

  private static TaskEventType event(String wire) {
    return WireName.parse(TaskEventType.class, wire).orElseThrow();
  }

  @ParameterizedTest(name = "{0}: stop {1}, start {2}, restart {3}, suspend or pause {4}")
  @CsvSource(
      textBlock =
          """
          # status    stop   start  restart  suspend or pause
          pending,    true,  false, false,   false
          scheduled,  true,  false, true,    false
          running,    true,  false, true,    true
          stopping,   false, false, false,   false
          stopped,    false, true,  false,   false
          failed,     true,  true,  true,    false
          suspending, true,  false, false,   false
          suspended,  true,  true,  false,   false
          paused,     true,  true,  true,    false
          """)
  void aUsersActionIsTakenInTheseStatuses(
      String status, boolean stop, boolean start, boolean restart, boolean suspend) {
    VmStatus s = status(status);
    assertEquals(stop, ActionRule.allows(UserAction.STOP, s, false), "stop");
    assertEquals(start, ActionRule.allows(UserAction.START, s, false), "start");
    assertEquals(restart, ActionRule.allows(UserAction.RESTART, s, false), "restart");
    assertEquals(suspend, ActionRule.allows(UserAction.SUSPEND, s, false), "suspend");
    assertEquals(suspend, ActionRule.allows(UserAction.PAUSE, s, false), "pause");
  }

  @ParameterizedTest(name = "{0} {1} {2} of set {3}: {4}")
  @CsvSource(
      textBlock =
          """
          # runtime  image              persistent  set     refusal (empty: can be suspended)
          qemu,      ,                  false,      ,
          qemu,      https://i/d.qcow2, true,       ,
          qemu,      https://i/d.qcow2, false,      ,       'its disk goes with its task (disk.persistent is false): its memory would come back to a fresh disk'
          qemu,      ,                  false,      runners, 'it is a replica of set runners, which keeps its replicas running'
          process,   ,                  false,      ,       'only qemu VMs can be suspended: a process VM has no memory to save'
          """)
  void onlyAQemuVmWhoseMemoryComesBackToItsDiskIsSuspended(
      String runtime, String image, boolean persistent, String set, String refusal) {
    assertEquals(refusal, SuspendRule.refusal(runtime, image, persistent, set));
  }

  @ParameterizedTest(name = "{0} of set {1}: {2}")
  @CsvSource(
      textBlock =
          """
          # runtime  set      refusal (empty: can be paused)
          qemu,      ,
          qemu,      runners, 'it is a replica of set runners, which keeps its replicas running'
          process,   ,        'only qemu VMs can be paused: a process VM has no guest to pause'
          """)
  void anyQemuVmButASetsReplicaIsPausedInPlace(String runtime, String set, String refusal) {
    assertEquals(refusal, SuspendRule.pauseRefusal(runtime, set));
  }

  @ParameterizedTest(name = "{0}, restart due {1}: finished {2}, run open {3}")
  @CsvSource(
      textBlock =
          """
          # status    restart due  finished  run open
          pending,    false,       false,    true
          scheduled,  false,       false,    true
          running,    false,       false,    true
          stopping,   false,       false,    true
          stopped,    false,       true,     false
          suspended,  false,       false,    true
          paused,     false,       false,    true
          failed,     false,       true,     true
          failed,     true,        false,    true
          """)
  void aVmsRunEndsWithItOnlyWhenItStopsAndAFailedOneStaysOpenShowingIt(
      String status, boolean restartDue, boolean finished, boolean open) {
    assertEquals(finished, RunRule.endedForGood(status(status), restartDue));
    assertEquals(open, RunRule.hasOpenRun(status(status)));
  }

  @Test
  void nothingIsTakenOnceADeleteIsAsked() {
    for (VmStatus s : VmStatus.values()) {
      for (UserAction a : UserAction.values()) {
        assertFalse(ActionRule.allows(a, s, true), a + " while " + s + " and deleting");
      }
    }
  }

  @ParameterizedTest(name = "{0} of generation {1}, VM at {2} {3}, id {4} after {5}: {6}")
  @CsvSource(
      textBlock =
          """
          # event       gen  VM at status     id  last  applies
          started,      2,   2,    scheduled, 10, 9,    true
          started,      1,   2,    scheduled, 10, 9,    false
          started,      3,   2,    scheduled, 10, 9,    false
          started,      2,   2,    scheduled, 9,  9,    false
          started,      2,   2,    scheduled, 8,  9,    false
          exited,       2,   2,    stopping,  10, 9,    false
          exited,       2,   2,    stopped,   10, 9,    false
          exited,       2,   2,    suspending, 10, 9,   false
          exited,       2,   2,    suspended, 10, 9,    false
          exited,       2,   2,    failed,    10, 9,    true
          moved,        3,   2,    running,   10, 9,    true
          moved,        2,   2,    running,   10, 9,    true
          moved,        4,   2,    running,   10, 9,    false
          failed-over,  3,   2,    running,   10, 9,    true
          placed,       3,   2,    pending,   10, 9,    false
          drained,      2,   2,    running,   10, 9,    true
          ready,        2,   2,    running,   10, 9,    false
          not-ready,    2,   2,    running,   10, 9,    false
          """)
  void aTaskEventAppliesToItsCurrentTaskOnceAndNotAfterAStop(
      String type,
      int generation,
      int restartCount,
      String status,
      long id,
      long last,
      boolean applies) {
    assertEquals(
        applies,
        EventRule.applies(event(type), generation, restartCount, status(status), id, last));
  }

  @Test
  void anEventOfAnUnknownTypeNeverApplies() {
    assertFalse(EventRule.applies(null, 1, 1, VmStatus.RUNNING, 10, 0));
  }

  /**
   * The VM at generation 2 before, the event, and the VM after: status, worker, generation, moving
   * from and to, and what follows.
   */
  @ParameterizedTest(name = "{0} on {1}, moving {2}->{3}; {4} of {5} on {6} exit {7}: {8}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          # before: status, worker, from, to; event: type, generation, worker, exit; after: status, worker, generation, from, to, then
          pending,   -,  -,  -,  placed,      2, w1, -, scheduled, w1, 2, -,  -,  NOTHING
          scheduled, w1, -,  -,  started,     2, w1, -, running,   w1, 2, -,  -,  NOTHING
          scheduled, w1, -,  -,  given-back,  2, w1, -, pending,   -,  2, -,  -,  NOTHING
          running,   w1, -,  -,  exited,      2, w1, 0, stopped,   w1, 2, -,  -,  ENDED
          running,   w1, -,  -,  exited,      2, w1, 3, failed,    w1, 2, -,  -,  ENDED
          running,   w1, -,  -,  vanished,    2, w1, -, failed,    w1, 2, -,  -,  ENDED
          running,   w1, -,  -,  moved,       3, w2, -, running,   w1, 3, w1, w2, NOTHING
          failed,    w1, -,  -,  moved,       3, w2, -, scheduled, w2, 3, -,  -,  NOTHING
          running,   w1, -,  -,  moved,       2, w2, -, scheduled, w2, 2, -,  -,  NOTHING
          running,   w1, -,  -,  failed-over, 3, w2, -, scheduled, w2, 3, -,  -,  NOTHING
          running,   w1, w1, w2, given-back,  2, w2, -, running,   w1, 2, w1, -,  NOTHING
          running,   w1, w1, -,  placed,      2, w3, -, running,   w1, 2, w1, w3, NOTHING
          running,   w1, w1, w2, started,     2, w2, -, running,   w2, 2, -,  -,  NOTHING
          running,   w1, w1, w2, failed,      2, w2, -, failed,    w2, 2, -,  -,  ENDED
          running,   w1, w1, w2, move-failed, 2, w2, -, running,   w1, 1, -,  -,  NOTHING
          running,   w1, w1, -,  move-failed, 2, w2, -, running,   w1, 1, -,  -,  NOTHING
          running,   w1, -,  -,  drained,     2, w1, -, running,   w1, 2, -,  -,  DRAINED
          """)
  void whatATaskEventMakesOfTheVm(
      String status,
      String worker,
      String from,
      String to,
      String type,
      int generation,
      String eventWorker,
      Integer exit,
      String statusAfter,
      String workerAfter,
      int generationAfter,
      String fromAfter,
      String toAfter,
      EventRule.Then then) {
    VmLife before = new VmLife(status(status), worker, 2, null, null, 9, 100, 200, 0, from, to, 0);
    TaskHeard heard =
        new TaskHeard(10, event(type), generation, eventWorker, "news", exit, 1_000, 500);

    EventRule.Heard after = EventRule.apply(before, heard);

    VmLife life = after.life();
    assertEquals(statusAfter, life.status().wireName(), "status");
    assertEquals(workerAfter, life.worker(), "worker");
    assertEquals(generationAfter, life.restartCount(), "generation");
    assertEquals(fromAfter, life.movingFrom(), "moving from");
    assertEquals(toAfter, life.movingTo(), "moving to");
    assertEquals(then, after.then());
    assertEquals(10, life.lastTaskEventId(), "the event is applied");
    assertEquals("news", life.message());
  }

  @Test
  void anEndRecordsItsTasksExitCodeAndTimes() {
    VmLife running =
        new VmLife(VmStatus.RUNNING, "w1", 2, null, null, 9, 100, 200, 0, null, null, 0);
    VmLife ended =
        EventRule.apply(
                running, new TaskHeard(10, TaskEventType.EXITED, 2, "w1", "exit 3", 3, 1_000, 250))
            .life();
    assertEquals(3, ended.exitCode());
    assertEquals(1_000, ended.finishedAtMillis());
    assertEquals(250, ended.startedAtMillis(), "when this task started, as the agent says");
  }

  @Test
  void aFailoverIsScheduledAtOnceWithNoRestartDueAndNoStartYet() {
    VmLife failing =
        new VmLife(VmStatus.RUNNING, "w1", 2, null, null, 9, 100, 200, 0, null, null, 5_000);
    VmLife after =
        EventRule.apply(
                failing,
                new TaskHeard(
                    10, TaskEventType.FAILED_OVER, 3, "w2", "failed over", null, 1_000, 0))
            .life();
    assertEquals(0, after.restartAtMillis(), "no restart due");
    assertEquals(0, after.startedAtMillis(), "its new task has not started");
    assertEquals(1_000, after.scheduledAtMillis());
  }

  @ParameterizedTest(name = "{0} code={1} -> {2}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          placed,          -,   scheduled
          started,         -,   running
          given-back,      -,   pending
          exited,          0,   stopped
          exited,          3,   failed
          exited,          -,   failed
          failed,          -,   failed
          failed,          0,   failed
          vanished,        -,   failed
          worker-offline,  -,   failed
          moved,           -,   running
          move-failed,     -,   running
          drained,         -,   stopped
          failed-over,     -,   scheduled
          """)
  void aTaskEventMakesItsVmsStatus(String type, Integer exitCode, String status) {
    assertEquals(status, StatusRule.after(event(type), exitCode).wireName());
  }

  @Test
  void everyEventTypeButReadinessHasAStatus() {
    for (TaskEventType type : TaskEventType.values()) {
      if (type.tellsReadiness()) {
        assertThrows(IllegalArgumentException.class, () -> StatusRule.after(type, 0));
        continue;
      }
      VmStatus status = StatusRule.after(type, 0);
      assertEquals(
          type.ends(), status == VmStatus.STOPPED || status == VmStatus.FAILED, type.toString());
    }
  }

  /**
   * Times in seconds; the delay starts at 10 s and grows to at most 60 s. {@code ran}: how long the
   * task ran before it ended (- for never); {@code within}: how many seconds before the end each
   * earlier restart after a failure was, newest last.
   */
  @ParameterizedTest(
      name = "{0} max={1} failed={2} in a row before={3} ran={4} earlier={5}: {6} {7} in a row")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          # policy    max  failed  before  ran   earlier   -> then     in a row  delay
          Never,      -,   true,   0,      5,    '',          stay,    0,        -
          Never,      -,   false,  2,      5,    '',          stay,    2,        -
          OnFailure,  -,   false,  2,      5,    '',          stay,    2,        -
          OnFailure,  -,   true,   0,      5,    '',          restart, 1,        10
          OnFailure,  -,   true,   1,      5,    '',          restart, 2,        20
          OnFailure,  -,   true,   2,      -,    '',          restart, 3,        40
          OnFailure,  -,   true,   5,      5,    '',          restart, 6,        60
          OnFailure,  -,   true,   5,      600,  '',          restart, 1,        10
          Always,     -,   false,  0,      5,    '',          restart, 1,        10
          Always,     -,   false,  1,      5,    '',          restart, 2,        20
          OnFailure,  2,   true,   1,      5,    '30',        restart, 2,        20
          OnFailure,  2,   true,   2,      5,    '90 30',     give-up, 0,        -
          OnFailure,  2,   true,   2,      5,    '4000 30',   restart, 3,        40
          OnFailure,  0,   true,   0,      5,    '',          give-up, 0,        -
          Always,     1,   false,  0,      5,    '30',        restart, 1,        10
          """)
  void anEndedTaskLeadsToARestartAfterADelayOrNothing(
      String policyName,
      Integer max,
      boolean failed,
      int before,
      Long ran,
      String earlier,
      String then,
      int inARow,
      Long delay) {
    long end = 100_000_000L;
    List<Long> restarts = new ArrayList<>();
    for (String ago : earlier.isBlank() ? new String[0] : earlier.split(" ")) {
      restarts.add(end - Long.parseLong(ago) * 1000);
    }
    RestartPolicy policy = WireName.parse(RestartPolicy.class, policyName).orElseThrow();
    RestartRule.Settings settings =
        new RestartRule.Settings(
            policy, Duration.ofSeconds(10), Duration.ofSeconds(60), max, Duration.ofHours(1));
    long started = ran == null ? 0 : end - ran * 1000;

    RestartRule.AfterEnd next =
        RestartRule.afterEnd(
            settings, new RestartRule.Count(before, restarts), failed, started, end, end);

    String kind =
        next instanceof RestartRule.Restart
            ? "restart"
            : next instanceof RestartRule.GiveUp ? "give-up" : "stay";
    assertEquals(then, kind);
    assertEquals(inARow, next.count().failuresInARow(), "failures in a row");
    if (next instanceof RestartRule.Restart r) {
      assertEquals(Duration.ofSeconds(delay), r.delay());
      assertEquals(end + delay * 1000, r.atMillis(), "counted from the end");
    }
  }

  @Test
  void onlyTheNewestRestartsThatCanTipTheCountAreKept() {
    RestartRule.Settings twoAnHour =
        new RestartRule.Settings(
            RestartPolicy.ON_FAILURE,
            Duration.ofSeconds(10),
            Duration.ofSeconds(60),
            2,
            Duration.ofHours(1));
    long now = 10 * 3_600_000L;
    RestartRule.AfterEnd next =
        RestartRule.afterEnd(
            twoAnHour,
            new RestartRule.Count(0, List.of(now - 7_200_000L, now - 60_000L)),
            true,
            now - 5_000,
            now,
            now);
    assertEquals(List.of(now - 60_000L, now), next.count().restartsAfterFailure());
  }

  @Test
  void aVmThatGivesUpSaysWhy() {
    RestartRule.Settings once =
        new RestartRule.Settings(
            RestartPolicy.ON_FAILURE,
            Duration.ofSeconds(10),
            Duration.ofSeconds(60),
            1,
            Duration.ofMinutes(10));
    RestartRule.AfterEnd next =
        RestartRule.afterEnd(once, new RestartRule.Count(1, List.of(0L)), true, 0, 1_000, 1_000);
    assertEquals(
        "not restarted: 1 restart after failures within 600 s used up (maxRestarts)",
        ((RestartRule.GiveUp) next).reason());
  }

  @Test
  void maxRestartsCountsOnlyTheRestartsWithinTheWindow() {
    Duration hour = Duration.ofHours(1);
    long now = 10 * 3_600_000L;
    List<Long> three = List.of(now - 3_700_000L, now - 600_000L, now - 60_000L);
    assertFalse(RestartPolicies.exhausted(null, hour, three, now), "no maximum: never");
    assertFalse(RestartPolicies.exhausted(3, hour, three, now), "the first was over an hour ago");
    assertEquals(true, RestartPolicies.exhausted(2, hour, three, now));
    assertEquals(true, RestartPolicies.exhausted(0, hour, List.of(), now), "0: no restart at all");
  }

  @ParameterizedTest(name = "{0} on {1}, moving {2} -> {3}: {4}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          # status   worker  from  to   held (worker:task)
          pending,   -,      -,    -,   ''
          scheduled, w1,     -,    -,   w1:vm.3
          running,   w1,     -,    -,   w1:vm.3
          stopping,  w1,     -,    -,   w1:vm.3
          stopped,   w1,     -,    -,   ''
          failed,    w1,     -,    -,   ''
          running,   w1,     w1,   -,   w1:vm.2
          running,   w1,     w1,   w2,  w2:vm.3 w1:vm.2
          """)
  void theTasksAVmMayHave(String status, String worker, String from, String to, String held) {
    String got =
        String.join(
            " ",
            HeldTasks.of("vm", 3, status(status), worker, from, to).stream()
                .map(t -> t.worker() + ":" + t.taskId())
                .toList());
    assertEquals(held, got);
  }

  /**
   * Readiness news, one after another, reaching a VM with a readiness check that runs generation 2
   * (from nothing heard): what its summary shows after each. An id is the outbox's; news must be
   * newer than the last heard and of the current task or a later one.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # news (type gen id at why, ...)                        | shown after the last
          ready 2 10 1000 -                                          | ready since 1970-01-01T00:00:01Z
          not-ready 2 10 0 refused                                   | not ready: refused
          ready 2 10 1000 -, not-ready 2 11 0 refused                | not ready: refused
          not-ready 2 11 0 refused, ready 2 10 1000 -                | not ready: refused
          ready 2 10 1000 -, ready 2 10 1000 -                       | ready since 1970-01-01T00:00:01Z
          ready 1 10 1000 -                                          | not ready yet
          ready 3 10 1000 -                                          | not ready yet
          ready 3 10 1000 -, ready 2 11 2000 -                       | not ready yet
          not-ready 2 10 0 -                                         | not ready yet
          started 2 10 0 -                                           | not ready yet
          """)
  void aVmsSummaryShowsTheNewestReadinessOfItsCurrentTask(String news, String shown) {
    HeardReadiness heard = HeardReadiness.none(true);
    for (String one : news.split(",")) {
      String[] f = one.trim().split(" ");
      heard =
          heard.heard(
              Long.parseLong(f[2]),
              event(f[0]),
              Integer.parseInt(f[1]),
              Long.parseLong(f[3]),
              "-".equals(f[4]) ? null : f[4],
              2);
    }
    assertEquals(shown, heard.shown(VmStatus.RUNNING, 2));
  }

  @Test
  void readinessIsShownOnlyOfARunningVmWithACheck() {
    HeardReadiness ready =
        HeardReadiness.none(true).heard(10, TaskEventType.READY, 2, 1000, null, 2);
    for (VmStatus s : VmStatus.values()) {
      if (s != VmStatus.RUNNING) {
        assertEquals(null, ready.shown(s, 2), s.wireName());
      }
    }
    assertEquals(
        null,
        HeardReadiness.none(false).shown(VmStatus.RUNNING, 0),
        "without a check, running is ready");
    assertEquals("not ready yet", ready.shown(VmStatus.RUNNING, 3), "after a restart");
  }
}
