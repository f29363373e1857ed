package dev.rota.core.scheduling.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each check records what it saw, and the reason a VM waits is read from that record. */
class PlacementStackTest {
  static Candidate worker(
      String name,
      WorkerHealth health,
      boolean paused,
      List<String> runtimes,
      Map<String, String> labels) {
    return new Candidate(name, Map.of("cpu", 8L), labels, runtimes, health, paused);
  }

  static final PendingVm SSD_IN_A =
      PendingVm.builder("v", 1, "process", Map.of("cpu", 1L))
          .labels(Map.of("disk", "ssd", "zone", "a"))
          .build();

  @Test
  void readyAndUnpausedCountsTheOthersByWhatTheyAre() {
    ReadyAndUnpaused check = new ReadyAndUnpaused();
    FeasibilityCheck.Tally tally = new FeasibilityCheck.Tally();
    for (Candidate w :
        List.of(
            worker("a", WorkerHealth.READY, true, List.of("process"), Map.of()),
            worker("b", WorkerHealth.LOST, false, List.of("process"), Map.of()),
            worker("c", WorkerHealth.NOT_READY, false, List.of("process"), Map.of()),
            worker("d", WorkerHealth.NOT_READY, false, List.of("process"), Map.of()))) {
      tally.reached();
      assertFalse(check.admits(w, SSD_IN_A, tally));
    }
    assertEquals(
        "no worker is ready and unpaused (1 lost, 2 not-ready, 1 paused)",
        check.whyNone(SSD_IN_A, tally));
    assertEquals(
        "no workers are registered", check.whyNone(SSD_IN_A, new FeasibilityCheck.Tally()));
  }

  @Test
  void hasLabelsNamesALabelNoWorkerCarriesElseSaysNoneCarriesThemAll() {
    HasLabels check = new HasLabels();
    FeasibilityCheck.Tally some = new FeasibilityCheck.Tally();
    check.admits(
        worker(
            "a", WorkerHealth.READY, false, List.of("process"), Map.of("disk", "ssd", "zone", "b")),
        SSD_IN_A,
        some);
    assertEquals("no ready worker has label zone=a", check.whyNone(SSD_IN_A, some));

    FeasibilityCheck.Tally split = new FeasibilityCheck.Tally();
    assertFalse(
        check.admits(
            worker("a", WorkerHealth.READY, false, List.of("process"), Map.of("disk", "ssd")),
            SSD_IN_A,
            split));
    assertFalse(
        check.admits(
            worker("b", WorkerHealth.READY, false, List.of("process"), Map.of("zone", "a")),
            SSD_IN_A,
            split));
    assertEquals(
        "no ready worker has all of the labels disk=ssd, zone=a", check.whyNone(SSD_IN_A, split));
    assertTrue(
        check.admits(
            worker(
                "c",
                WorkerHealth.READY,
                false,
                List.of("process"),
                Map.of("disk", "ssd", "zone", "a")),
            SSD_IN_A,
            split));
  }

  @Test
  void everyProfileHasARankerAndTheyOrderOppositeWays() {
    for (SchedulerProfile p : SchedulerProfile.values()) {
      assertTrue(Ranker.BY_PROFILE.containsKey(p), p.toString());
    }
    assertTrue(
        Ranker.of(SchedulerProfile.OPTIMIZE_UTILIZATION).compare(0.9, 0.1) < 0, "fullest first");
    assertTrue(Ranker.of(SchedulerProfile.DISTRIBUTE_LOAD).compare(0.1, 0.9) < 0, "emptiest first");
  }

  @Test
  void roomIsTheReasonOnlyWhenSomeWorkerPassedEveryCheck() {
    FitsResources fits = new FitsResources();
    assertEquals(
        "needs cpu 16; the most free on a matching worker is 7",
        fits.whyNone(Map.of("cpu", 16L, "memory", 1L), r -> r.equals("cpu") ? 7 : 100));
    assertEquals(
        "needs cpu=4, memory=4096 together; no matching worker has all of it free",
        fits.whyNone(Map.of("memory", 4096L, "cpu", 4L), r -> 10_000));
    AvoidsWorker avoids = new AvoidsWorker();
    PendingVm avoiding =
        PendingVm.builder("v", 1, "process", Map.of("cpu", 1L)).avoid("w1").build();
    assertFalse(avoids.admits("w1", avoiding));
    assertTrue(avoids.admits("w2", avoiding));
    assertEquals("", avoids.why(SSD_IN_A));
  }
}
