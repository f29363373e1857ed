package dev.rota.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.model.VmStatus;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which replicas a warm pool replaces (every status, with and without a restart due), which a claim
 * takes, and which the pool suspends, as tables.
 */
class PoolRuleTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:01:00Z");

  @ParameterizedTest(name = "{0} restart due={1} ended {2} s ago -> {3}")
  @CsvSource(
      textBlock =
          """
      STOPPED,    false, 15, true
      STOPPED,    false, 14, false
      FAILED,     false, 60, true
      FAILED,     false, 1,  false
      FAILED,     true,  60, false
      RUNNING,    false, 60, false
      PENDING,    false, 60, false
      SCHEDULED,  false, 60, false
      STOPPING,   false, 60, false
      SUSPENDED,  false, 60, false
      PAUSED,     false, 60, false
      """)
  void aReplicaIsReplacedOnceItEndedForGoodAndItsPauseIsOver(
      VmStatus status, boolean restartDue, int endedSecondsAgo, boolean replaced) {
    assertEquals(
        replaced, PoolRule.replaces(status, restartDue, NOW.minusSeconds(endedSecondsAgo), NOW));
  }

  @ParameterizedTest(name = "{0} awaiting readiness={1}: claimable running={2} suspended={3}")
  @CsvSource(
      textBlock =
          """
      RUNNING,    false, true,  false
      RUNNING,    true,  false, false
      SUSPENDED,  false, false, true
      SUSPENDING, false, false, false
      PENDING,    false, false, false
      SCHEDULED,  false, false, false
      PAUSED,     false, false, false
      STOPPED,    false, false, false
      FAILED,     false, false, false
      """)
  void aClaimTakesAReadyRunningReplicaOrASuspendedOneAsThePoolKeepsThem(
      VmStatus status, boolean awaitingReadiness, boolean whenRunning, boolean whenSuspended) {
    assertEquals(whenRunning, PoolRule.claimable(status, awaitingReadiness, false));
    assertEquals(whenSuspended, PoolRule.claimable(status, awaitingReadiness, true));
  }

  @ParameterizedTest(name = "{0} awaiting readiness={1} -> suspended now: {2}")
  @CsvSource({
    "RUNNING, false, true",
    "RUNNING, true, false",
    "SCHEDULED, false, false",
    "SUSPENDING, false, false",
    "SUSPENDED, false, false",
    "PAUSED, false, false"
  })
  void aPoolThatKeepsItsReplicasSuspendedSuspendsOnlyThoseReady(
      VmStatus status, boolean awaitingReadiness, boolean suspends) {
    assertEquals(suspends, PoolRule.suspends(status, awaitingReadiness));
  }

  @ParameterizedTest(name = "{0} ended at an unknown time -> {1}")
  @CsvSource({"STOPPED, true", "FAILED, true", "RUNNING, false"})
  void anEndNotTimedIsLongAgo(VmStatus status, boolean replaced) {
    assertEquals(replaced, PoolRule.replaces(status, false, null, NOW));
  }
}
