package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.ready;
import static dev.rota.core.scheduling.Fixtures.withLabels;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.Spread;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A set's spread as the placer applies it: checked per replica, counted as replicas are placed. */
class SpreadPlacementTest {
  private static final Spread ZONE = new Spread.ByLabel("zone");

  private static PendingVm replica(String set, int ordinal, long cpu, Spread spread) {
    return PendingVm.builder(
            set + "-" + ordinal, ordinal, "process", Map.of("cpu", cpu, "memory", 512L))
        .set(set)
        .spread(spread)
        .build();
  }

  private static List<PendingVm> replicas(String set, int count, Spread spread) {
    List<PendingVm> all = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      all.add(replica(set, i, 1, spread));
    }
    return all;
  }

  private static Holding held(String worker, String set) {
    return new Holding(worker, Map.of("cpu", 1L, "memory", 512L), set);
  }

  private static Candidate inZone(String name, long cpu, String zone) {
    return withLabels(ready(name, cpu), Map.of("zone", zone));
  }

  private static Map<String, Integer> perWorker(PlacementPlan plan) {
    Map<String, Integer> n = new TreeMap<>();
    plan.placed().forEach(p -> n.merge(p.worker(), 1, Integer::sum));
    return n;
  }

  @ParameterizedTest
  @EnumSource(SchedulerProfile.class)
  void distinctWorkersNeverPutsTwoReplicasOnOneWorkerEvenWhenPacking(SchedulerProfile profile) {
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 8), ready("w3", 8));
    PlacementPlan plan =
        Placer.place(
            workers,
            List.of(held("w2", "web")),
            replicas("web", 3, Spread.DISTINCT_WORKERS),
            profile);
    assertEquals(Map.of("w1", 1, "w3", 1), perWorker(plan), "w2 already runs one");
    assertEquals(1, plan.pending().size());
    assertEquals(
        "distinct-workers: every worker with room for it already runs a replica of set web",
        plan.pending().get(0).reason());
  }

  @Test
  void withoutASpreadPackingPutsEveryReplicaOnOneWorker() {
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 8), ready("w3", 8));
    PlacementPlan plan =
        Placer.place(
            workers,
            List.of(),
            replicas("web", 3, Spread.NONE),
            SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertEquals(Map.of("w1", 3), perWorker(plan));
  }

  @Test
  void distinctWorkersCountsOnlyItsOwnSet() {
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 8));
    PlacementPlan plan =
        Placer.place(
            workers,
            List.of(held("w1", "other"), held("w1", "other")),
            replicas("web", 2, Spread.DISTINCT_WORKERS),
            SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertEquals(Map.of("w1", 1, "w2", 1), perWorker(plan));
  }

  @Test
  void aReplicaThatFitsNowhereWaitsForRoomNotForItsSpread() {
    PlacementPlan plan =
        Placer.place(
            List.of(ready("w1", 1)),
            List.of(),
            List.of(replica("big", 0, 4, Spread.DISTINCT_WORKERS)),
            SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertTrue(plan.pending().get(0).reason().contains("cpu"), plan.pending().get(0).reason());
  }

  @ParameterizedTest
  @EnumSource(SchedulerProfile.class)
  void aLabelSpreadKeepsThePerValueCountsWithinOne(SchedulerProfile profile) {
    List<Candidate> workers =
        List.of(
            inZone("a1", 100, "a"),
            inZone("a2", 100, "a"),
            inZone("b1", 100, "b"),
            inZone("c1", 100, "c"),
            ready("nozone", 100));
    PlacementPlan plan =
        Placer.place(
            workers,
            List.of(held("a1", "web"), held("a2", "web")),
            replicas("web", 7, ZONE),
            profile);
    Map<String, Integer> perZone = new TreeMap<>(Map.of("a", 2));
    Map<String, String> zoneOf = new HashMap<>();
    workers.forEach(w -> zoneOf.put(w.name(), w.labels().getOrDefault("zone", "-")));
    plan.placed().forEach(p -> perZone.merge(zoneOf.get(p.worker()), 1, Integer::sum));
    assertEquals(
        Map.of("a", 3, "b", 3, "c", 3),
        perZone,
        "the two in a counted; none on the worker without a zone");
    assertTrue(plan.pending().isEmpty());
  }

  @Test
  void aLabelSpreadWaitsRatherThanSkewWhenTheZoneWithTheFewestIsFull() {
    List<Candidate> workers = List.of(inZone("a1", 8, "a"), inZone("b1", 1, "b"));
    PlacementPlan plan =
        Placer.place(
            workers,
            List.of(held("b1", "web")),
            replicas("web", 3, ZONE),
            SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertEquals(
        Map.of("a1", 2),
        perWorker(plan),
        "a evens up, then goes one ahead; a third would make it 3 to 1");
    assertEquals(1, plan.pending().size());
    assertEquals(
        "spread over label zone: replicas of set web per value {a=2, b=1}; the next goes to zone=b,"
            + " where no worker has room for it",
        plan.pending().get(0).reason());
  }

  @Test
  void aLabelNoWorkerCarriesIsNamed() {
    PlacementPlan plan =
        Placer.place(
            List.of(ready("w1", 8)),
            List.of(),
            replicas("web", 1, ZONE),
            SchedulerProfile.OPTIMIZE_UTILIZATION);
    assertEquals(
        "spread over label zone: no worker it could go to carries that label",
        plan.pending().get(0).reason());
  }
}
