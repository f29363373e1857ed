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

  /** Ten replicas over zones a, b and c, by targets: how many each zone gets, as a table. */
  @org.junit.jupiter.params.ParameterizedTest(name = "{0}: {1}")
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      value = {
        "-              | a=4 b=3 c=3",
        "a=70;b=30      | a=7 b=3",
        "a=50           | a=5 b=3 c=2",
        "a=20;b=20;c=60 | a=2 b=2 c=6",
        "a=100          | a=10",
        "d=100          | ",
      })
  void aLabelSpreadWithTargetsSharesTheReplicasByThem(String targets, String expected) {
    Map<String, Integer> shares = new TreeMap<>();
    if (!targets.equals("-")) {
      for (String pair : targets.split(";")) {
        String[] kv = pair.split("=");
        shares.put(kv[0], Integer.parseInt(kv[1]));
      }
    }
    Spread spread = new Spread.ByLabel("zone", shares);
    List<Candidate> workers =
        List.of(inZone("a1", 64, "a"), inZone("b1", 64, "b"), inZone("c1", 64, "c"));
    for (SchedulerProfile profile : SchedulerProfile.values()) {
      PlacementPlan plan = Placer.place(workers, List.of(), replicas("web", 10, spread), profile);
      Map<String, Integer> perZone = new TreeMap<>();
      plan.placed().forEach(p -> perZone.merge(p.worker().substring(0, 1), 1, Integer::sum));
      List<String> written = new ArrayList<>();
      perZone.forEach((zone, n) -> written.add(zone + "=" + n));
      assertEquals(expected == null ? "" : expected, String.join(" ", written), profile.toString());
      if (expected == null) {
        assertEquals(
            "spread over label zone by targets {d=100}: no worker it could go to carries a value"
                + " with a share",
            plan.pending().get(0).reason());
      }
    }
  }

  @Test
  void aTargetSpreadGoesOnFromWhereItsReplicasAre() {
    Spread spread = new Spread.ByLabel("zone", Map.of("a", 70, "b", 30));
    List<Candidate> workers = List.of(inZone("a1", 64, "a"), inZone("b1", 64, "b"));
    // Three already run in b, none in a: the next four all go to a (3 of 7 in b is still more
    // than its share of the next), then they alternate as the shares say.
    List<Holding> held = List.of(held("b1", "web"), held("b1", "web"), held("b1", "web"));
    PlacementPlan plan =
        Placer.place(workers, held, replicas("web", 4, spread), SchedulerProfile.DISTRIBUTE_LOAD);
    assertEquals(Map.of("a1", 4), perWorker(plan));
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
