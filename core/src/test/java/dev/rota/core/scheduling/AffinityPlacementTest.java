package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.holding;
import static dev.rota.core.scheduling.Fixtures.ready;
import static dev.rota.core.scheduling.Fixtures.vm;
import static dev.rota.core.scheduling.Fixtures.withLabels;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.Affinity;
import dev.rota.core.model.SchedulerProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Affinities: soft preferences for workers by their labels, ranked with the profile. */
class AffinityPlacementTest {
  private static final SchedulerProfile PACK = SchedulerProfile.OPTIMIZE_UTILIZATION;
  private static final SchedulerProfile SPREAD = SchedulerProfile.DISTRIBUTE_LOAD;

  /** {@code 50 zone = a;-20 spot exists} as affinities. */
  static List<Affinity> affinities(String written) {
    List<Affinity> all = new ArrayList<>();
    if (written == null) {
      return all;
    }
    for (String one : written.split(";")) {
      String[] parts = one.strip().split("\\s+", 4);
      all.add(
          new Affinity(
              parts[1],
              parts[2],
              parts.length < 4 ? List.of() : List.of(parts[3].split(",")),
              Integer.parseInt(parts[0])));
    }
    return all;
  }

  /**
   * Three workers of 8 CPUs: w1 (zone a, spot) holds 6, w2 (zone b) 2, w3 (zone a) nothing. Packing
   * alone picks w1, spreading w3.
   */
  @ParameterizedTest(name = "{0} [{1}]: {2}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "OPTIMIZE_UTILIZATION | -                          | w1",
        "DISTRIBUTE_LOAD      | -                          | w3",
        "OPTIMIZE_UTILIZATION | 50 zone = b                | w2",
        "DISTRIBUTE_LOAD      | 50 zone = b                | w2",
        "OPTIMIZE_UTILIZATION | -50 spot exists            | w2",
        "OPTIMIZE_UTILIZATION | 10 zone = a                | w1",
        "DISTRIBUTE_LOAD      | 10 zone = a                | w3",
        "OPTIMIZE_UTILIZATION | 50 zone = a;-50 spot exists | w3",
        "OPTIMIZE_UTILIZATION | 10 zone = a;-100 spot exists | w2",
        "OPTIMIZE_UTILIZATION | 80 zone = b;20 zone = a    | w2",
        "DISTRIBUTE_LOAD      | 20 zone = b;80 zone = a    | w3",
        "OPTIMIZE_UTILIZATION | 50 zone in b,c             | w2",
        "OPTIMIZE_UTILIZATION | 50 zone = nowhere          | w1",
      })
  void affinitiesWeighWithTheProfile(SchedulerProfile profile, String written, String expected) {
    List<Candidate> workers =
        List.of(
            withLabels(ready("w1", 8), Map.of("zone", "a", "spot", "yes")),
            withLabels(ready("w2", 8), Map.of("zone", "b")),
            withLabels(ready("w3", 8), Map.of("zone", "a")));
    PendingVm v = vm("v", 1, 1).toBuilder().affinities(affinities(written)).build();
    PlacementPlan plan =
        Placer.place(workers, List.of(holding("w1", 6), holding("w2", 2)), List.of(v), profile);
    assertEquals(expected, plan.placed().get(0).worker());
  }

  @Test
  void anAffinityIsSoftAVmGoesElsewhereWhenTheWorkersItPrefersAreFull() {
    List<Candidate> workers =
        List.of(
            withLabels(ready("w1", 2), Map.of("zone", "a")),
            withLabels(ready("w2", 8), Map.of("zone", "b")));
    List<PendingVm> pending = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pending.add(vm("v" + i, i, 1).toBuilder().affinities(affinities("100 zone = a")).build());
    }
    Map<String, String> placed = new HashMap<>();
    Placer.place(workers, List.of(), pending, SPREAD)
        .placed()
        .forEach(p -> placed.put(p.vm(), p.worker()));
    assertEquals(Map.of("v0", "w1", "v1", "w1", "v2", "w2", "v3", "w2"), placed);
  }

  @Test
  void onEqualWorkersAVmAlwaysGoesToOneItPrefersThatHasRoom() {
    Random random = new Random(5);
    int checked = 0;
    for (int round = 0; round < 300; round++) {
      List<Candidate> workers = new ArrayList<>();
      for (int w = 0; w < 2 + random.nextInt(6); w++) {
        workers.add(withLabels(ready("w" + w, 8), Map.of("zone", "z" + random.nextInt(3))));
      }
      String zone = "z" + random.nextInt(3);
      PendingVm v =
          vm("v", 1, 1 + random.nextInt(4)).toBuilder()
              .affinities(affinities((1 + random.nextInt(100)) + " zone = " + zone))
              .build();
      String to =
          Placer.place(workers, List.of(), List.of(v), random.nextBoolean() ? PACK : SPREAD)
              .placed()
              .get(0)
              .worker();
      boolean anyInZone = workers.stream().anyMatch(w -> zone.equals(w.labels().get("zone")));
      if (anyInZone) {
        String placedZone =
            workers.stream()
                .filter(w -> w.name().equals(to))
                .findFirst()
                .orElseThrow()
                .labels()
                .get("zone");
        assertEquals(zone, placedZone, "round " + round);
        checked++;
      }
    }
    assertTrue(checked > 100, "rounds with a preferred worker: " + checked);
  }

  @Test
  void aBadWeightOrRuleIsNamed() {
    assertEquals(
        "weight", new Affinity("zone", "=", List.of("a"), 0).problem().orElseThrow().part());
    assertEquals(
        "weight", new Affinity("zone", "=", List.of("a"), 101).problem().orElseThrow().part());
    assertEquals(
        "values", new Affinity("zone", "regexp", List.of("[a"), 5).problem().orElseThrow().part());
    assertTrue(new Affinity("zone", "=", List.of("a"), -100).problem().isEmpty());
  }
}
