package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.holding;
import static dev.rota.core.scheduling.Fixtures.ready;
import static dev.rota.core.scheduling.Fixtures.vm;
import static dev.rota.core.scheduling.Fixtures.withLabels;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agentapi.Taint;
import dev.rota.agentapi.Toleration;
import dev.rota.core.model.SchedulerProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Taints on workers and the VMs that tolerate them, as placement sees them. */
class TaintPlacementTest {
  private static final SchedulerProfile PACK = SchedulerProfile.OPTIMIZE_UTILIZATION;
  private static final SchedulerProfile SPREAD = SchedulerProfile.DISTRIBUTE_LOAD;

  /** A worker of {@code cpu} CPUs with {@code taints}, written as an agent declares them. */
  static Candidate tainted(String name, long cpu, String... taints) {
    Map<String, String> labels = new HashMap<>();
    for (String written : taints) {
      Taint t = Taint.parse(written);
      labels.put(t.label(), t.labelValue());
    }
    return withLabels(ready(name, cpu), labels);
  }

  static PendingVm tolerating(String name, long seq, long cpu, String... tolerations) {
    List<Toleration> list = new ArrayList<>();
    for (String written : tolerations) {
      list.add(Toleration.parse(written));
    }
    return vm(name, seq, cpu).toBuilder().tolerations(list).build();
  }

  /**
   * w1, the fullest, is tainted {@code dedicated=gpu:NoSchedule}; w2 is not: packing would choose
   * w1 but for the taint.
   */
  @ParameterizedTest(name = "tolerating [{0}]: {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "-                              | w2",
        "dedicated=gpu:NoSchedule       | w1",
        "dedicated=gpu                  | w1",
        "dedicated                      | w1",
        "dedicated:NoSchedule           | w1",
        "*                              | w1",
        "dedicated=cpu:NoSchedule       | w2",
        "dedicated=gpu:PreferNoSchedule | w2",
        "other                          | w2",
      })
  void aNoScheduleTaintKeepsOffEveryVmThatDoesNotTolerateIt(String toleration, String expected) {
    List<Candidate> workers = List.of(tainted("w1", 8, "dedicated=gpu:NoSchedule"), ready("w2", 8));
    PendingVm vm = toleration == null ? vm("v", 1, 1) : tolerating("v", 1, 1, toleration);
    PlacementPlan plan = Placer.place(workers, List.of(holding("w1", 4)), List.of(vm), PACK);
    assertEquals(expected, plan.placed().get(0).worker());
  }

  @Test
  void aVmEveryWorkerRepelsWaitsNamingTheTaintWithCounts() {
    List<Candidate> workers =
        List.of(
            tainted("w1", 8, "dedicated=gpu:NoSchedule"),
            tainted("w2", 8, "dedicated=gpu:NoSchedule"),
            tainted("w3", 8, "spot:NoSchedule"));
    PlacementPlan plan = Placer.place(workers, List.of(), List.of(vm("v", 1, 1)), PACK);
    assertEquals(
        "fits no worker of the cluster: every one that could take it has a taint it does not"
            + " tolerate: dedicated=gpu:NoSchedule (2 of 3 workers)",
        plan.pending().get(0).reason());
    assertTrue(plan.pending().get(0).fitsNowhere(), "no worker of the cluster would take it");

    // One worker without the taint, but paused: the VM waits for it, and says which taint the
    // ready ones have.
    List<Candidate> withPaused = new ArrayList<>(workers);
    withPaused.add(Fixtures.paused(ready("w4", 8)));
    PlacementPlan waiting = Placer.place(withPaused, List.of(), List.of(vm("v", 1, 1)), PACK);
    assertEquals(
        "every ready worker that could take it has a taint it does not tolerate:"
            + " dedicated=gpu:NoSchedule (2 of 3 workers)",
        waiting.pending().get(0).reason());
  }

  @Test
  void aPreferNoScheduleWorkerTakesVmsThatDoNotTolerateItOnlyWhenNoOtherHasRoom() {
    List<Candidate> workers = List.of(tainted("w1", 8, "spot:PreferNoSchedule"), ready("w2", 4));
    List<PendingVm> pending = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pending.add(vm("v" + i, i, 1));
    }
    for (SchedulerProfile profile : List.of(PACK, SPREAD)) {
      Map<String, String> placed = new HashMap<>();
      Placer.place(workers, List.of(holding("w1", 1)), pending, profile)
          .placed()
          .forEach(p -> placed.put(p.vm(), p.worker()));
      assertEquals(
          Map.of("v0", "w2", "v1", "w2", "v2", "w2", "v3", "w2", "v4", "w1", "v5", "w1"),
          placed,
          profile + ": the untainted worker fills first, whatever the profile");
    }
    PendingVm tolerant = tolerating("t", 9, 1, "spot:PreferNoSchedule");
    assertEquals(
        "w1",
        Placer.place(workers, List.of(holding("w1", 1)), List.of(tolerant), PACK)
            .placed()
            .get(0)
            .worker(),
        "one that tolerates it packs onto the fuller worker as usual");
  }

  @Test
  void noPlacementEverGoesPastANoScheduleTaintAndPreferNoScheduleWorkersComeLast() {
    Random random = new Random(11);
    String[] taints = {
      "dedicated=gpu:NoSchedule",
      "dedicated=ci:NoSchedule",
      "spot:PreferNoSchedule",
      "spot=yes:NoSchedule"
    };
    String[] tolerations = {
      "dedicated=gpu:NoSchedule", "dedicated", "spot:PreferNoSchedule", "spot", "*", "other"
    };
    int placedCount = 0;
    int reluctantChecked = 0;
    for (int round = 0; round < 300; round++) {
      List<Candidate> workers = new ArrayList<>();
      for (int w = 0; w < 1 + random.nextInt(8); w++) {
        List<String> on = new ArrayList<>();
        if (random.nextInt(3) == 0) {
          on.add(taints[random.nextInt(taints.length)]);
        }
        workers.add(tainted("w" + w, 4 + random.nextInt(12), on.toArray(String[]::new)));
      }
      List<PendingVm> pending = new ArrayList<>();
      Map<String, PendingVm> byName = new HashMap<>();
      for (int v = 0; v < random.nextInt(30); v++) {
        List<String> tol = new ArrayList<>();
        for (int t = 0; t < random.nextInt(3); t++) {
          tol.add(tolerations[random.nextInt(tolerations.length)]);
        }
        PendingVm vm = tolerating("v" + v, v, 1 + random.nextInt(4), tol.toArray(String[]::new));
        pending.add(vm);
        byName.put(vm.name(), vm);
      }
      Map<String, Candidate> workerByName = new HashMap<>();
      workers.forEach(w -> workerByName.put(w.name(), w));
      PlacementPlan plan =
          Placer.place(workers, List.of(), pending, random.nextBoolean() ? PACK : SPREAD);
      Map<String, Long> free = new HashMap<>();
      workers.forEach(w -> free.put(w.name(), w.capacity().get("cpu")));
      for (PlacementPlan.Placement p : plan.placed()) {
        PendingVm vm = byName.get(p.vm());
        List<Taint> labels = Taint.of(workerByName.get(p.worker()).labels());
        List<Taint> repelling = Toleration.untolerated(vm.tolerations(), labels, Taint.NO_SCHEDULE);
        assertTrue(repelling.isEmpty(), "round " + round + ": " + p + " goes past " + repelling);
        if (!Toleration.untolerated(vm.tolerations(), labels, Taint.PREFER_NO_SCHEDULE).isEmpty()) {
          // It went to a worker that prefers not to take it: no worker it may go to without
          // that had room for it then.
          for (Candidate other : workers) {
            boolean preferred =
                Toleration.untolerated(
                            vm.tolerations(), Taint.of(other.labels()), Taint.NO_SCHEDULE)
                        .isEmpty()
                    && Toleration.untolerated(
                            vm.tolerations(), Taint.of(other.labels()), Taint.PREFER_NO_SCHEDULE)
                        .isEmpty();
            assertTrue(
                !preferred || free.get(other.name()) < vm.request().get("cpu"),
                "round " + round + ": " + p + " while " + other.name() + " had room");
          }
          reluctantChecked++;
        }
        free.merge(p.worker(), -vm.request().get("cpu"), Long::sum);
        placedCount++;
      }
    }
    assertTrue(placedCount > 1000, "placements to check: " + placedCount);
    assertTrue(reluctantChecked > 20, "placements past PreferNoSchedule: " + reluctantChecked);
  }
}
