package dev.rota.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScheduledVmNamesTest {
  @ParameterizedTest
  @CsvSource({
    "nightly, rota-schedule-nightly-2026-12-01T20:00:00Z, nightly-20261201-200000-",
    "a, rota-schedule-a-2027-01-02T03:04:05Z, a-20270102-030405-",
    // A schedule named like the start of another's run id is still its own.
    "ci-2026, rota-schedule-ci-2026-2026-12-01T20:00:00Z, ci-2026-20261201-200000-",
  })
  void aRunsVmIsNamedAfterItsScheduleAndTime(String schedule, String runId, String start) {
    String vm = ScheduledVmNames.of(schedule, runId, "run-1");
    assertTrue(vm.startsWith(start) && vm.substring(start.length()).matches("[0-9a-f]{6}"), vm);
  }

  @Test
  void twoRunsOfTheSameSecondMakeTwoVmsAndARunTriedAgainTheSame() {
    String id = "rota-schedule-nightly-2026-12-01T20:00:00Z";
    assertEquals(
        ScheduledVmNames.of("nightly", id, "run-1"), ScheduledVmNames.of("nightly", id, "run-1"));
    assertNotEquals(
        ScheduledVmNames.of("nightly", id, "run-1"), ScheduledVmNames.of("nightly", id, "run-2"));
  }

  @Test
  void aRunStartedOtherwiseGetsANameOfItsIdsAllTheSame() {
    String one = ScheduledVmNames.of("nightly", "by-hand-1", "r");
    assertEquals(one, ScheduledVmNames.of("nightly", "by-hand-1", "r"));
    assertNotEquals(one, ScheduledVmNames.of("nightly", "by-hand-2", "r"));
    assertTrue(one.matches("nightly-[0-9a-f]{14}"), one);
  }

  @Test
  void theLongestScheduleNameMakesAVmNameOfAtMost63Characters() {
    String schedule = "s".repeat(ScheduledVmNames.MAX_SCHEDULE_NAME);
    String id = ScheduledVmWorkflow.scheduleId(schedule) + "-2026-12-01T20:00:00Z";
    assertEquals(63, ScheduledVmNames.of(schedule, id, "r").length());
    assertTrue(ScheduledVmNames.of(schedule, "by-hand", "r").length() <= 63);
  }
}
