package dev.rota.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.model.TaskEventType;
import dev.rota.model.VmStatus;
import dev.rota.scheduling.ActionRetries.Kind;
import dev.rota.scheduling.ActionRetries.Next;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rules the workflow and the apply step follow, as tables: every event type, every action kind.
 */
class DecisionRulesTest {
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
          """)
  void aTaskEventMakesItsVmsStatus(String event, Integer exitCode, String status) {
    TaskEventType type = dev.rota.model.WireName.parse(TaskEventType.class, event).orElseThrow();
    assertEquals(status, StatusRule.after(type, exitCode).wireName());
  }

  @ParameterizedTest(name = "{0} refused={1} tried before={2} -> {3}")
  @CsvSource(
      textBlock =
          """
      START,   true,   0,  FAIL_TASK
      START,   false,  0,  RETRY
      START,   false,  3,  RETRY
      START,   false,  4,  GIVE_BACK
      REMOVE,  true,   0,  DROP
      REMOVE,  false,  18, RETRY
      REMOVE,  false,  19, DROP
      NOTIFY,  false,  0,  RETRY
      NOTIFY,  false,  1000, RETRY
      """)
  void aFailedActionIsRetriedOrGivenUpAsItsKindAllows(
      Kind kind, boolean refused, int before, Next next) {
    assertEquals(next, ActionRetries.afterFailure(kind, refused, before));
  }

  @org.junit.jupiter.api.Test
  void everyEventTypeHasAStatus() {
    for (TaskEventType type : TaskEventType.values()) {
      VmStatus status = StatusRule.after(type, 0);
      assertEquals(
          type.ends(), status == VmStatus.STOPPED || status == VmStatus.FAILED, type.toString());
    }
  }

  @org.junit.jupiter.api.Test
  void maxRestartsCountsOnlyTheRestartsWithinTheWindow() {
    java.time.Duration hour = java.time.Duration.ofHours(1);
    long now = 10 * 3_600_000L;
    java.util.List<Long> two = java.util.List.of(now - 3_700_000L, now - 600_000L, now - 60_000L);
    assertEquals(false, RestartPolicies.exhausted(null, hour, two, now), "no maximum: never");
    assertEquals(
        false, RestartPolicies.exhausted(3, hour, two, now), "the first was more than an hour ago");
    assertEquals(true, RestartPolicies.exhausted(2, hour, two, now));
    assertEquals(
        true, RestartPolicies.exhausted(0, hour, java.util.List.of(), now), "0: no restart at all");
  }
}
