package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.holding;
import static dev.rota.core.scheduling.Fixtures.ready;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.Spread;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Among the workers that may take a VM, one that holds its image goes first, the most recent user
 * of it before the others (Scoot's snapshot groups): it starts the VM without fetching the image.
 */
class ImageAffinityPlacementTest {
  private static final String IMAGE = "ghcr.io/acme/build:7";
  private static final Instant EARLIER = Instant.parse("2026-11-20T10:00:00Z");
  private static final Instant LATER = Instant.parse("2026-11-22T10:00:00Z");

  private static Candidate holdsImage(Candidate c, String image, Instant lastUsed) {
    return new Candidate(
        c.name(),
        c.capacity(),
        c.labels(),
        c.runtimes(),
        c.health(),
        c.paused(),
        Map.of(image, lastUsed));
  }

  private static PendingVm ofImage(String name, long seq, long cpu, String image) {
    return PendingVm.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L))
        .image(image)
        .build();
  }

  private static PlacementPlan.Placement only(PlacementPlan plan) {
    assertEquals(1, plan.placed().size(), plan.toString());
    return plan.placed().get(0);
  }

  @ParameterizedTest
  @EnumSource(SchedulerProfile.class)
  void aWorkerHoldingTheImageIsPreferredOverTheProfilesChoiceAndSaysSo(SchedulerProfile profile) {
    // w1 is the fullest and the first by name: either profile would choose it, were it not for the
    // image.
    List<Candidate> workers = List.of(ready("w1", 8), holdsImage(ready("w2", 8), IMAGE, EARLIER));
    List<Holding> held =
        profile == SchedulerProfile.OPTIMIZE_UTILIZATION ? List.of(holding("w1", 2)) : List.of();
    assertEquals(
        "w1",
        only(Placer.place(workers, held, List.of(ofImage("x", 1, 1, null)), profile)).worker());
    assertEquals(
        "w1",
        only(Placer.place(workers, held, List.of(ofImage("x", 1, 1, "other:1")), profile))
            .worker());

    PlacementPlan.Placement p =
        only(Placer.place(workers, held, List.of(ofImage("x", 1, 1, IMAGE)), profile));
    assertEquals("w2", p.worker());
    assertEquals("holds image " + IMAGE + ", last used " + EARLIER, p.why());
  }

  @Test
  void theWorkerThatUsedTheImageMostRecentlyGoesFirst() {
    List<Candidate> workers =
        List.of(
            holdsImage(ready("w1", 8), IMAGE, EARLIER),
            holdsImage(ready("w2", 8), IMAGE, LATER),
            ready("w3", 8));
    PlacementPlan plan =
        Placer.place(
            workers,
            List.of(holding("w1", 4)),
            List.of(ofImage("x", 1, 1, IMAGE)),
            SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertEquals("w2", only(plan).worker(), "w1 is fuller, but w2 ran the image later");
  }

  @Test
  void whenNoHolderHasRoomTheProfileChoosesAndNothingIsClaimed() {
    List<Candidate> workers =
        List.of(holdsImage(ready("w1", 2), IMAGE, LATER), ready("w2", 8), ready("w3", 8));
    PlacementPlan.Placement p =
        only(
            Placer.place(
                workers,
                List.of(holding("w3", 1)),
                List.of(ofImage("x", 1, 4, IMAGE)),
                SchedulerProfile.OPTIMIZE_UTILIZATION));
    assertEquals("w3", p.worker());
    assertNull(p.why());
  }

  @Test
  void holdersFillUpAsTheTermPlacesThenTheRestTakeTheOverflow() {
    List<Candidate> workers =
        List.of(ready("w1", 4), holdsImage(ready("w2", 4), IMAGE, LATER), ready("w3", 4));
    List<PendingVm> pending = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pending.add(ofImage("x" + i, i, 1, IMAGE));
    }
    PlacementPlan plan =
        Placer.place(workers, List.of(), pending, SchedulerProfile.DISTRIBUTE_LOAD);
    assertEquals(6, plan.placed().size());
    assertEquals(
        4,
        plan.placed().stream().filter(p -> p.worker().equals("w2")).count(),
        "the holder first, to the full");
    assertEquals(
        List.of("w2", "w2", "w2", "w2", "w1", "w3"),
        plan.placed().stream().map(PlacementPlan.Placement::worker).toList(),
        "then the others, emptiest first as the profile asks");
  }

  @Test
  void aRestartAfterAFailureStillGoesElsewhereFirstThenToAnotherHolder() {
    PendingVm restart =
        PendingVm.builder("r", 1, "process", Map.of("cpu", 1L, "memory", 512L))
            .failedOn("w1")
            .image(IMAGE)
            .build();
    List<Candidate> onlyTheFailedOneHolds =
        List.of(holdsImage(ready("w1", 8), IMAGE, LATER), ready("w2", 8));
    assertEquals(
        "w2",
        only(Placer.place(
                onlyTheFailedOneHolds,
                List.of(),
                List.of(restart),
                SchedulerProfile.OPTIMIZE_UTILIZATION))
            .worker());

    List<Candidate> twoHold =
        List.of(
            holdsImage(ready("w1", 8), IMAGE, LATER),
            ready("w2", 8),
            holdsImage(ready("w3", 8), IMAGE, EARLIER));
    assertEquals(
        "w3",
        only(Placer.place(
                twoHold, List.of(), List.of(restart), SchedulerProfile.OPTIMIZE_UTILIZATION))
            .worker());
  }

  @Test
  void aSetsSpreadComesBeforeTheImage() {
    List<Candidate> workers = List.of(holdsImage(ready("w1", 8), IMAGE, LATER), ready("w2", 8));
    List<PendingVm> replicas =
        List.of(
            PendingVm.builder("web-0", 1, "process", Map.of("cpu", 1L, "memory", 512L))
                .set("web")
                .spread(Spread.DISTINCT_WORKERS)
                .image(IMAGE)
                .build(),
            PendingVm.builder("web-1", 2, "process", Map.of("cpu", 1L, "memory", 512L))
                .set("web")
                .spread(Spread.DISTINCT_WORKERS)
                .image(IMAGE)
                .build());
    PlacementPlan plan =
        Placer.place(workers, List.of(), replicas, SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertEquals(
        List.of("w1", "w2"), plan.placed().stream().map(PlacementPlan.Placement::worker).toList());
  }
}
