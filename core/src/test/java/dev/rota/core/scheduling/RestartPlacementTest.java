package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.holding;
import static dev.rota.core.scheduling.Fixtures.ready;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.model.SchedulerProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A restart after a failure prefers another worker (Nomad's reschedule), but is not kept waiting
 * for one.
 */
class RestartPlacementTest {
  private static PendingVm restarted(String failedOn, long cpu) {
    return PendingVm.builder("r", 1, "process", Map.of("cpu", cpu, "memory", 512L))
        .failedOn(failedOn)
        .build();
  }

  private static String placedOn(PlacementPlan plan) {
    return plan.placed().isEmpty() ? null : plan.placed().get(0).worker();
  }

  @ParameterizedTest
  @EnumSource(SchedulerProfile.class)
  void itGoesElsewhereEvenWhereTheProfileWouldPickTheWorkerItFailedOn(SchedulerProfile profile) {
    // w1 is both the fullest and, by name, the first: either profile would choose it for a new VM.
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 8));
    List<Holding> held =
        profile == SchedulerProfile.OPTIMIZE_UTILIZATION ? List.of(holding("w1", 2)) : List.of();
    assertEquals("w1", placedOn(Placer.place(workers, held, List.of(restarted(null, 1)), profile)));
    assertEquals("w2", placedOn(Placer.place(workers, held, List.of(restarted("w1", 1)), profile)));
  }

  @ParameterizedTest
  @EnumSource(SchedulerProfile.class)
  void itTakesTheWorkerItFailedOnWhenNoOtherHasRoom(SchedulerProfile profile) {
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 2));
    assertEquals(
        "w1", placedOn(Placer.place(workers, List.of(), List.of(restarted("w1", 4)), profile)));
  }
}
