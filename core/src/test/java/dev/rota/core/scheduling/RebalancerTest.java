package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.Spread;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IntSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Rebalancing as counts: go-orchestrator's own scenarios (10 workers x 100 single-instance tasks
 * then +2 workers; 1,000 x 10,000 then +100), and the rules a move keeps. A "term" here is one
 * plan; its moves are then carried out (the new copies started, the old ones removed) before the
 * next.
 */
class RebalancerTest {
  private static final Map<String, Long> WORKER = Map.of("cpu", 64L, "memory", 65536L);
  private static final Map<String, Long> SMALL = Map.of("cpu", 1L, "memory", 512L);

  /** A cluster under test: workers, and where each replica runs. */
  private static final class Cluster {
    final List<Candidate> workers = new ArrayList<>();
    final Map<String, VmSnapshot> vms = new LinkedHashMap<>();
    final Map<String, String> runsOn = new HashMap<>();
    final Map<String, SetSnapshot> sets = new TreeMap<>();
    int terms;
    int moves;

    Cluster workers(String prefix, int from, int count) {
      for (int i = from; i < from + count; i++) {
        workers.add(worker(String.format("%s%04d", prefix, i), Map.of()));
      }
      return this;
    }

    /**
     * {@code count} sets of one replica each (go-orchestrator's single-instance tasks), round robin
     * over the workers.
     */
    Cluster singles(int count) {
      for (int i = 0; i < count; i++) {
        String set = String.format("task%05d", i);
        sets.put(set, new SetSnapshot(set, 1, 1));
        run(replica(set, 0, Spread.NONE, SMALL), workers.get(i % workers.size()).name());
      }
      return this;
    }

    Cluster run(VmSnapshot vm, String worker) {
      vms.put(vm.name(), vm);
      runsOn.put(vm.name(), worker);
      return this;
    }

    List<Move> plan(SchedulerProfile profile, int budget) {
      List<Holding> holdings = new ArrayList<>();
      runsOn.forEach(
          (vm, w) -> holdings.add(new Holding(w, vms.get(vm).request(), vms.get(vm).set())));
      return Rebalancer.plan(
          new dev.rota.core.scheduling.placement.WorkerClasses(workers),
          holdings,
          List.of(),
          List.copyOf(vms.values()),
          runsOn,
          new Rebalancing(budget, sets),
          profile);
    }

    /** One term: plan, then carry the moves out. */
    List<Move> term(SchedulerProfile profile) {
      List<Move> planned = plan(profile, 1000);
      terms++;
      moves += planned.size();
      planned.forEach(m -> runsOn.put(m.vm(), m.to()));
      return planned;
    }

    /** Terms until one moves nothing; that last one is not counted. */
    void settle(SchedulerProfile profile) {
      while (!term(profile).isEmpty()) {
        assertTrue(terms < 50, "rebalancing does not settle");
      }
      terms--;
    }

    IntSummaryStatistics perWorker() {
      Map<String, Integer> counts = new HashMap<>();
      workers.forEach(w -> counts.put(w.name(), 0));
      runsOn.values().forEach(w -> counts.merge(w, 1, Integer::sum));
      return counts.values().stream().mapToInt(Integer::intValue).summaryStatistics();
    }
  }

  static Candidate worker(String name, Map<String, String> labels) {
    return new Candidate(name, WORKER, labels, List.of("process"), WorkerHealth.READY, false);
  }

  static VmSnapshot replica(String set, int ordinal, Spread spread, Map<String, Long> request) {
    return VmSnapshot.builder(set + "-" + ordinal, ordinal, "process", request)
        .status(VmStatus.RUNNING)
        .set(set)
        .spread(spread)
        .build();
  }

  @Test
  void twoWorkersJoiningTenTakeTheirShareInOneTermWithTheFewestMoves() {
    Cluster c = new Cluster().workers("w", 0, 10).singles(100);
    c.workers("w", 10, 2);

    c.settle(SchedulerProfile.DISTRIBUTE_LOAD);

    assertEquals(1, c.terms, "terms that moved something");
    assertEquals(16, c.moves, "go-orchestrator's lower bound: 10 per worker down to 9 or 8");
    assertEquals(9, c.perWorker().getMax());
    assertEquals(8, c.perWorker().getMin());
  }

  @Test
  void aHundredWorkersJoiningAThousandAreFilledInOneTerm() {
    Cluster c = new Cluster().workers("w", 0, 1000).singles(10_000);
    c.workers("w", 1000, 100);

    c.settle(SchedulerProfile.DISTRIBUTE_LOAD);

    assertEquals(1, c.terms);
    assertEquals(900, c.moves, "one from each of 900 workers: 1,000 x 9 + 100 x 10");
    assertTrue(c.perWorker().getMax() - c.perWorker().getMin() <= 1, c.perWorker().toString());
  }

  @Test
  void aBalancedClusterMovesNothing() {
    Cluster c = new Cluster().workers("w", 0, 1000).singles(10_000);

    assertEquals(List.of(), c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000));
  }

  @Test
  void theBudgetCapsOneTermsMoves() {
    Cluster c = new Cluster().workers("w", 0, 10).singles(100);
    c.workers("w", 10, 2);

    assertEquals(5, c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 5).size());
    assertEquals(List.of(), c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 0));
  }

  @Test
  void packingMovesNothingForLoad() {
    Cluster c = new Cluster().workers("w", 0, 10).singles(100);
    c.workers("w", 10, 2);

    assertEquals(List.of(), c.plan(SchedulerProfile.OPTIMIZE_UTILIZATION, 1000));
  }

  @Test
  void aSetHasNoMoreMovesUnderWayThanItsMaxUnavailableLessWhatItLacks() {
    Cluster c = new Cluster().workers("w", 0, 2);
    for (int i = 0; i < 10; i++) {
      c.run(replica("web", i, Spread.NONE, SMALL), "w000" + (i % 2));
    }
    c.workers("w", 2, 3);

    c.sets.put("web", new SetSnapshot("web", 10, 3));
    assertEquals(3, c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000).size());

    c.sets.put("web", new SetSnapshot("web", 11, 3)); // one replica missing
    assertEquals(2, c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000).size());

    c.sets.put("web", new SetSnapshot("web", 10, 3));
    VmSnapshot r = c.vms.get("web-0");
    c.vms.put(
        "web-0",
        VmSnapshot.builder(r.name(), r.seq(), r.runtime(), r.request())
            .labels(r.labels())
            .status(r.status())
            .restartCount(1)
            .set("web")
            .movingFrom("w0000")
            .build()); // its move is under way
    c.runsOn.remove("web-0");
    assertEquals(2, c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000).size());
  }

  @Test
  void replicasWithPersistentDisksMoveOnlyLive() {
    for (boolean live : new boolean[] {false, true}) {
      Cluster c = new Cluster().workers("w", 0, 2);
      for (int i = 0; i < 4; i++) {
        c.run(Fixtures.withDisk(replica("box", i, Spread.NONE, SMALL), "w0000", live), "w0000");
      }
      c.sets.put("box", new SetSnapshot("box", 4, 4));
      assertEquals(
          live ? 2 : 0,
          c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000).size(),
          live
              ? "carried over running, memory and disk, they balance as any replica"
              : "a disk copied only at rest stays where it is, and so does its VM");
    }
  }

  @Test
  void onlyReplicasOfSetsMove() {
    Cluster c = new Cluster().workers("w", 0, 2);
    for (int i = 0; i < 10; i++) {
      c.run(
          VmSnapshot.builder("solo-" + i, i, "process", SMALL).status(VmStatus.RUNNING).build(),
          "w0000");
    }
    c.sets.put("other", new SetSnapshot("other", 1, 1));

    assertEquals(
        List.of(),
        c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000),
        "a VM of no set is never restarted to balance");
  }

  @Test
  void workersThatTakeNoPlacementsNeitherGiveNorTake() {
    Cluster c = new Cluster().workers("w", 0, 1).singles(10);
    c.workers.add(
        new Candidate("paused", WORKER, Map.of(), List.of("process"), WorkerHealth.READY, true));
    c.workers.add(
        new Candidate("lost", WORKER, Map.of(), List.of("process"), WorkerHealth.LOST, false));

    assertEquals(List.of(), c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000));

    Cluster d = new Cluster();
    d.workers.add(
        new Candidate("paused", WORKER, Map.of(), List.of("process"), WorkerHealth.READY, true));
    d.singles(10).workers("w", 0, 1);
    assertEquals(
        List.of(), d.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000), "draining is not balancing");
  }

  @Test
  void aMoveNeedsRoomAndTheReplicasRuntimeAndLabels() {
    Cluster c = new Cluster().workers("w", 0, 1);
    for (int i = 0; i < 4; i++) {
      c.run(replica("big", i, Spread.NONE, Map.of("cpu", 16L)), "w0000");
    }
    c.sets.put("big", new SetSnapshot("big", 4, 4));
    c.workers.add(
        new Candidate(
            "tiny", Map.of("cpu", 8L), Map.of(), List.of("process"), WorkerHealth.READY, false));
    c.workers.add(
        new Candidate(
            "other-runtime", WORKER, Map.of(), List.of("vetu"), WorkerHealth.READY, false));

    assertEquals(List.of(), c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000));
  }

  @Test
  void aMoveKeepsTheReplicasConstraints() {
    Cluster c = new Cluster();
    c.workers.add(worker("a0", Map.of("zone", "a")));
    c.workers.add(worker("a1", Map.of("zone", "a")));
    c.workers.add(worker("b0", Map.of("zone", "b")));
    List<dev.rota.core.model.LabelConstraint> inA =
        List.of(new dev.rota.core.model.LabelConstraint("zone", "=", List.of("a")));
    for (int i = 0; i < 6; i++) {
      c.run(
          VmSnapshot.builder("web-" + i, i, "process", SMALL)
              .status(VmStatus.RUNNING)
              .set("web")
              .constraints(inA)
              .build(),
          "a0");
    }
    c.sets.put("web", new SetSnapshot("web", 6, 6));

    List<Move> moves = c.plan(SchedulerProfile.DISTRIBUTE_LOAD, 1000);

    assertEquals(3, moves.size(), moves.toString());
    assertTrue(moves.stream().allMatch(m -> m.to().equals("a1")), moves.toString());
  }

  @Test
  void distinctWorkersIsMendedUnderEitherProfile() {
    Cluster c = new Cluster().workers("w", 0, 3);
    c.run(replica("db", 0, Spread.DISTINCT_WORKERS, SMALL), "w0000");
    c.run(replica("db", 1, Spread.DISTINCT_WORKERS, SMALL), "w0000");
    c.run(replica("db", 2, Spread.DISTINCT_WORKERS, SMALL), "w0001");
    c.sets.put("db", new SetSnapshot("db", 3, 1));

    List<Move> moves = c.plan(SchedulerProfile.OPTIMIZE_UTILIZATION, 1000);

    assertEquals(1, moves.size());
    assertEquals("db-1", moves.get(0).vm());
    assertEquals("w0002", moves.get(0).to(), "the only worker without a replica of db");
    assertTrue(
        moves.get(0).why().startsWith("distinct-workers: worker w0000 runs 2 replicas of set db"),
        moves.get(0).why());
  }

  @Test
  void aNewZoneTakesItsShareOfALabelSpread() {
    Cluster c = new Cluster();
    c.workers.add(worker("a1", Map.of("zone", "a")));
    c.workers.add(worker("a2", Map.of("zone", "a")));
    for (int i = 0; i < 4; i++) {
      c.run(replica("web", i, new Spread.ByLabel("zone"), SMALL), i % 2 == 0 ? "a1" : "a2");
    }
    c.sets.put("web", new SetSnapshot("web", 4, 2));
    c.workers.add(worker("b1", Map.of("zone", "b")));

    c.settle(SchedulerProfile.OPTIMIZE_UTILIZATION);

    assertEquals(1, c.terms);
    assertEquals(2, c.moves, "4/0 to 2/2");
    assertEquals(2, c.runsOn.values().stream().filter("b1"::equals).count());
  }

  @Test
  void aLabelSpreadWithTargetsIsMendedToItsShares() {
    Cluster c = new Cluster();
    c.workers.add(worker("a1", Map.of("zone", "a")));
    c.workers.add(worker("b1", Map.of("zone", "b")));
    Spread shares = new Spread.ByLabel("zone", Map.of("a", 70, "b", 30));
    for (int i = 0; i < 10; i++) {
      c.run(replica("web", i, shares, SMALL), i % 2 == 0 ? "a1" : "b1");
    }
    c.sets.put("web", new SetSnapshot("web", 10, 10));

    c.settle(SchedulerProfile.OPTIMIZE_UTILIZATION);

    assertEquals(2, c.moves, "5/5 to 7/3");
    assertEquals(7, c.runsOn.values().stream().filter("a1"::equals).count());
    // Balancing load under distribute-load moves nothing back against the shares.
    c.terms = 0;
    c.moves = 0;
    c.settle(SchedulerProfile.DISTRIBUTE_LOAD);
    assertEquals(7, c.runsOn.values().stream().filter("a1"::equals).count());
  }

  @Test
  void balancingLoadKeepsSpreads() {
    Cluster c = new Cluster().workers("w", 0, 2);
    for (int i = 0; i < 2; i++) {
      c.run(replica("db", i, Spread.DISTINCT_WORKERS, SMALL), "w000" + i);
    }
    for (int i = 0; i < 6; i++) {
      c.run(replica("web", i, Spread.NONE, SMALL), "w0000");
    }
    c.sets.put("db", new SetSnapshot("db", 2, 2));
    c.sets.put("web", new SetSnapshot("web", 6, 6));
    c.workers("w", 2, 1);

    c.settle(SchedulerProfile.DISTRIBUTE_LOAD);

    assertTrue(c.perWorker().getMax() - c.perWorker().getMin() <= 1, c.perWorker().toString());
    assertEquals(
        2,
        c.runsOn.entrySet().stream()
            .filter(e -> e.getKey().startsWith("db-"))
            .map(Map.Entry::getValue)
            .distinct()
            .count(),
        "db's replicas stay on distinct workers");
  }
}
