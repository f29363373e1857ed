package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.WorkerHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HealthJudgeTest {
  static final HealthSettings S =
      HealthSettings.defaults(); // lost 30 s, offline 3 m more, cool-down 5 m, 3 errors
  static final Instant T = Instant.parse("2026-01-01T00:10:00Z");

  static WorkerProbeState state(
      WorkerHealth h, long silentSeconds, Boolean probeOk, int failures, Instant flakyUntil) {
    return new WorkerProbeState(
        "w",
        h,
        T.minusSeconds(silentSeconds),
        probeOk == null ? null : T.minusSeconds(1),
        Boolean.TRUE.equals(probeOk),
        failures,
        failures > 0 ? "connection refused" : null,
        flakyUntil);
  }

  @ParameterizedTest(name = "{0} silent {1}s probe={2} failures={3} -> {5}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          not-ready,   0,  -,     0, -,   not-ready
          not-ready,   0,  true,  0, -,   ready
          not-ready,   0,  false, 5, -,   not-ready
          ready,       0,  true,  0, -,   ready
          ready,      29,  true,  0, -,   ready
          ready,      30,  true,  0, -,   lost
          ready,     209,  true,  0, -,   lost
          ready,     210,  true,  0, -,   offline
          lost,        0,  -,     0, -,   ready
          offline,     0,  -,     0, -,   ready
          ready,       0,  false, 1, -,   ready
          ready,       0,  false, 3, -,   flaky
          flaky,       0,  false, 3, 60,  flaky
          flaky,       0,  false, 3, -60, flaky
          flaky,       0,  true,  0, -60, ready
          flaky,      40,  false, 3, 60,  lost
          """)
  void transitions(
      String from, long silent, Boolean probeOk, int failures, Long flakyInSeconds, String to) {
    WorkerHealth previous =
        dev.rota.core.model.WireName.parse(WorkerHealth.class, from).orElseThrow();
    Instant flakyUntil = flakyInSeconds == null ? null : T.plusSeconds(flakyInSeconds);
    HealthVerdict v =
        HealthJudge.judge(state(previous, silent, probeOk, failures, flakyUntil), T, S, null);
    assertEquals(to, v.health().wireName(), v.message());
    assertFalse(v.message().isBlank());
  }

  @Test
  void aWorkerTurningFlakyCoolsDownForTheConfiguredTimeThenIsProbedAgain() {
    HealthVerdict v = HealthJudge.judge(state(WorkerHealth.READY, 0, false, 3, null), T, S, null);
    assertEquals(T.plus(S.flakyCooldown()), v.flakyUntil());
    assertTrue(v.message().contains("connection refused"), v.message());
    WorkerProbeState cooling = state(WorkerHealth.FLAKY, 0, false, 3, v.flakyUntil());
    assertFalse(HealthJudge.probeDue(cooling, T.plus(Duration.ofMinutes(4)), S));
    assertTrue(HealthJudge.probeDue(cooling, v.flakyUntil(), S));
  }

  @Test
  void aReadyWorkerIsProbedOncePerProbeIntervalOrEveryTermWithZero() {
    WorkerProbeState probed =
        new WorkerProbeState("w", WorkerHealth.READY, T, T, true, 0, null, null);
    assertEquals(Duration.ofSeconds(10), S.probeInterval(), "the default");
    assertFalse(
        HealthJudge.probeDue(probed, T.plusSeconds(9), S),
        "its agent reports changes itself meanwhile");
    assertTrue(HealthJudge.probeDue(probed, T.plusSeconds(10), S));
    assertTrue(
        HealthJudge.probeDue(
            new WorkerProbeState("w", WorkerHealth.READY, T, null, false, 0, null, null), T, S),
        "never probed: at once");
    HealthSettings everyTerm =
        new HealthSettings(
            S.lostAfter(),
            S.offlineAfter(),
            S.flakyCooldown(),
            S.flakyAfterErrors(),
            S.probeBackoffCap(),
            S.flakyAfterTaskFailures(),
            S.taskFailureWindow(),
            S.removeOfflineAfter(),
            Duration.ZERO);
    assertTrue(HealthJudge.probeDue(probed, T, everyTerm));
  }

  @Test
  void notReadyWorkersAreProbedWithDoublingBackoffUpToTheCap() {
    assertEquals(Duration.ofSeconds(1), HealthJudge.backoff(1, S));
    assertEquals(Duration.ofSeconds(8), HealthJudge.backoff(4, S));
    assertEquals(Duration.ofMinutes(1), HealthJudge.backoff(40, S));
    WorkerProbeState failing =
        new WorkerProbeState("w", WorkerHealth.NOT_READY, T, T, false, 4, "refused", null);
    assertFalse(HealthJudge.probeDue(failing, T.plusSeconds(7), S));
    assertTrue(HealthJudge.probeDue(failing, T.plusSeconds(8), S));
    assertFalse(
        HealthJudge.probeDue(state(WorkerHealth.LOST, 40, true, 0, null), T, S),
        "lost workers are not called");
  }

  @Test
  void aTermProbesAtMostItsLimitTheNeverProbedAndLongestDueFirst() {
    WorkerProbeState newcomer =
        new WorkerProbeState("z-new", WorkerHealth.NOT_READY, T, null, false, 0, null, null);
    WorkerProbeState longDue =
        new WorkerProbeState(
            "b-long", WorkerHealth.READY, T, T.minusSeconds(60), true, 0, null, null);
    WorkerProbeState justDue =
        new WorkerProbeState(
            "a-just", WorkerHealth.READY, T, T.minusSeconds(10), true, 0, null, null);
    WorkerProbeState cooled = state(WorkerHealth.FLAKY, 0, false, 3, T.minusSeconds(30));
    WorkerProbeState notDue =
        new WorkerProbeState(
            "c-fresh", WorkerHealth.READY, T, T.minusSeconds(2), true, 0, null, null);
    WorkerProbeState lost = state(WorkerHealth.LOST, 40, true, 0, null);
    List<WorkerProbeState> all = List.of(justDue, notDue, lost, cooled, longDue, newcomer);

    assertEquals(
        List.of(newcomer, longDue, cooled, justDue),
        HealthJudge.probesDue(all, T, S, 10),
        "every one due, in the order they fell due; neither the one probed 2 s ago nor the lost one");
    assertEquals(
        List.of(newcomer, longDue),
        HealthJudge.probesDue(all, T, S, 2),
        "the rest wait for the next term");
    assertEquals(
        List.of(longDue, cooled),
        HealthJudge.probesDue(List.of(cooled, justDue, longDue), T, S, 2));
  }

  @Test
  void theNextChangeIsTheNearestDeadline() {
    HealthVerdict ready =
        HealthJudge.judge(state(WorkerHealth.READY, 10, true, 0, null), T, S, null);
    assertEquals(T.plusSeconds(20), ready.nextChange(), "lost 30 s after the last heartbeat");
    HealthVerdict lost =
        HealthJudge.judge(state(WorkerHealth.READY, 40, true, 0, null), T, S, null);
    assertEquals(
        T.minusSeconds(40).plus(Duration.ofSeconds(210)),
        lost.nextChange(),
        "offline 3 min after lost");
  }

  @Test
  void afterAnOutageAWorkerIsJudgedOnWhatItCouldSaySinceTheSchedulerCameBack() {
    // Silent for 5 min, all of it while no host listened: the scheduler came back 10 s ago.
    WorkerProbeState silent = state(WorkerHealth.READY, 300, true, 0, null);
    Instant back = T.minusSeconds(10);
    assertEquals(
        WorkerHealth.OFFLINE,
        HealthJudge.judge(silent, T, S, null).health(),
        "without grace: offline at once");
    HealthVerdict graced = HealthJudge.judge(silent, T, S, back);
    assertEquals(WorkerHealth.READY, graced.health(), "it has had 10 s to speak, not 5 min");
    assertEquals(
        back.plusSeconds(30),
        graced.nextChange(),
        "lost 30 s after the scheduler came back, if still silent");

    HealthVerdict lost = HealthJudge.judge(silent, back.plusSeconds(30), S, back);
    assertEquals(WorkerHealth.LOST, lost.health());
    assertTrue(
        lost.message().contains("none since the scheduler came back at " + back), lost.message());
    assertEquals(
        WorkerHealth.OFFLINE,
        HealthJudge.judge(
                state(WorkerHealth.LOST, 300, true, 0, null), back.plusSeconds(210), S, back)
            .health());

    WorkerProbeState heard = state(WorkerHealth.READY, 5, true, 0, null);
    assertEquals(
        T.plusSeconds(25),
        HealthJudge.judge(heard, T, S, back).nextChange(),
        "a heartbeat since counts as before");
  }

  @Test
  void theGraceMakesNoWorkerBetterWithoutASignOfLifeAndASuccessfulProbeIsOne() {
    Instant back = T.minusSeconds(10);
    // Lost and offline before the outage, not probed (nobody calls them), not heard from since.
    WorkerProbeState lost =
        new WorkerProbeState(
            "w", WorkerHealth.LOST, T.minusSeconds(400), T.minusSeconds(380), true, 0, null, null);
    WorkerProbeState offline =
        new WorkerProbeState(
            "w", WorkerHealth.OFFLINE, T.minusSeconds(900), null, false, 0, null, null);
    assertEquals(
        WorkerHealth.LOST,
        HealthJudge.judge(lost, T, S, back).health(),
        "not offline for the outage, nor ready unheard");
    assertEquals(
        WorkerHealth.OFFLINE,
        HealthJudge.judge(offline, T, S, back).health(),
        "not ready without a word");
    assertEquals(
        WorkerHealth.LOST, HealthJudge.judge(lost, back.plusSeconds(29), S, back).health());
    assertEquals(
        WorkerHealth.OFFLINE,
        HealthJudge.judge(lost, back.plusSeconds(210), S, back).health(),
        "offline once silent lost-after plus offline-after since the return");

    // Not ready before the outage: its probe answered since the return is a sign of life.
    WorkerProbeState answered =
        new WorkerProbeState(
            "w",
            WorkerHealth.NOT_READY,
            T.minusSeconds(300),
            T.minusSeconds(2),
            true,
            0,
            null,
            null);
    assertEquals(WorkerHealth.READY, HealthJudge.judge(answered, T, S, back).health());
    WorkerProbeState answeredBefore =
        new WorkerProbeState(
            "w",
            WorkerHealth.NOT_READY,
            T.minusSeconds(300),
            T.minusSeconds(20),
            true,
            0,
            null,
            null);
    assertEquals(
        WorkerHealth.NOT_READY,
        HealthJudge.judge(answeredBefore, T, S, back).health(),
        "an answer from before the outage is not one");
  }

  @Test
  void tasksFailingOnAnAnsweringWorkerMakeItFlakyForTheCoolDown() {
    WorkerProbeState failing =
        new WorkerProbeState("w", WorkerHealth.READY, T, T, true, 0, null, null, 5);
    HealthVerdict v = HealthJudge.judge(failing, T, S, null);
    assertEquals(WorkerHealth.FLAKY, v.health());
    assertEquals(T.plus(S.flakyCooldown()), v.flakyUntil());
    assertTrue(
        v.message().startsWith("tasks failed on it repeatedly (5 within 10 min)"), v.message());

    WorkerProbeState fewer =
        new WorkerProbeState("w", WorkerHealth.READY, T, T, true, 0, null, null, 4);
    assertEquals(WorkerHealth.READY, HealthJudge.judge(fewer, T, S, null).health());

    HealthSettings off =
        new HealthSettings(
            S.lostAfter(),
            S.offlineAfter(),
            S.flakyCooldown(),
            S.flakyAfterErrors(),
            S.probeBackoffCap(),
            0,
            S.taskFailureWindow());
    assertEquals(
        WorkerHealth.READY, HealthJudge.judge(failing, T, off, null).health(), "0 turns it off");
  }

  /** A term someone waits on asks first only the probes that decide where VMs may go. */
  @ParameterizedTest(name = "{0}, probed before: {1} -> decides placement: {2}")
  @CsvSource(
      textBlock =
          """
          ready,     true,  false
          ready,     false, true
          not-ready, true,  true
          not-ready, false, true
          flaky,     true,  true
          lost,      true,  true
          """)
  void theProbesThatDecidePlacementAreThoseOfWorkersNotReadyOrNeverAsked(
      String health, boolean probedBefore, boolean decides) {
    WorkerHealth h = dev.rota.core.model.WireName.parse(WorkerHealth.class, health).orElseThrow();
    assertEquals(
        decides,
        HealthJudge.probeDecidesPlacement(state(h, 0, probedBefore ? true : null, 0, null)));
  }
}
