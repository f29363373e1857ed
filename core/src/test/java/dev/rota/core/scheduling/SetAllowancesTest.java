package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.VmStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SetAllowancesTest {
  private static VmSnapshot replica(
      String name, VmStatus status, String movingFrom, String oldCopyOn) {
    return VmSnapshot.builder(name, 1, "process", Map.of("cpu", 1L))
        .status(status)
        .restartCount(1)
        .set("web")
        .movingFrom(movingFrom)
        .restartPolicy(RestartPolicy.ALWAYS)
        .oldCopyOn(oldCopyOn)
        .build();
  }

  @Test
  void aMoveCountsAgainstMaxUnavailableUntilItsOldCopyIsGone() {
    Map<String, SetSnapshot> sets = Map.of("web", new SetSnapshot("web", 4, 2));
    List<VmSnapshot> settled =
        List.of(
            replica("web-0", VmStatus.RUNNING, null, null),
            replica("web-1", VmStatus.RUNNING, null, null),
            replica("web-2", VmStatus.RUNNING, null, null),
            replica("web-3", VmStatus.RUNNING, null, null));
    assertEquals(2, SetAllowances.of(settled, sets).get("web"));

    List<VmSnapshot> moving =
        List.of(
            replica("web-0", VmStatus.RUNNING, "w1", null),
            replica("web-1", VmStatus.RUNNING, null, "w1"),
            replica("web-2", VmStatus.RUNNING, null, null),
            replica("web-3", VmStatus.RUNNING, null, null));
    assertEquals(
        0,
        SetAllowances.of(moving, sets).get("web"),
        "one new copy on its way and one old copy being stopped: two under way");

    List<VmSnapshot> missing =
        List.of(
            replica("web-0", VmStatus.PENDING, null, null),
            replica("web-1", VmStatus.RUNNING, null, "w1"),
            replica("web-2", VmStatus.RUNNING, null, null),
            replica("web-3", VmStatus.RUNNING, null, null));
    assertEquals(0, SetAllowances.of(missing, sets).get("web"), "one missing, one still moving");
  }

  @Test
  void aReplicaRunningButNotYetReadyIsNotAvailable() {
    Map<String, SetSnapshot> sets = Map.of("web", new SetSnapshot("web", 3, 1));
    VmSnapshot ready = replica("web-0", VmStatus.RUNNING, null, null);
    VmSnapshot booting =
        VmSnapshot.builder("web-1", 1, "qemu", Map.of("cpu", 1L))
            .status(VmStatus.RUNNING)
            .restartCount(1)
            .set("web")
            .restartPolicy(RestartPolicy.ALWAYS)
            .awaitingReadiness(true)
            .build();
    assertEquals(
        1,
        SetAllowances.of(
                List.of(ready, replica("web-1", VmStatus.RUNNING, null, null), ready), sets)
            .get("web"),
        "all three ready: one may move");
    assertEquals(
        0,
        SetAllowances.of(List.of(ready, booting, ready), sets).get("web"),
        "one still booting to ready is one away: none may move");
  }
}
