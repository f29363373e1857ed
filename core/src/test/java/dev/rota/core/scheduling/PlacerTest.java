package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.health;
import static dev.rota.core.scheduling.Fixtures.holding;
import static dev.rota.core.scheduling.Fixtures.paused;
import static dev.rota.core.scheduling.Fixtures.ready;
import static dev.rota.core.scheduling.Fixtures.vm;
import static dev.rota.core.scheduling.Fixtures.withLabels;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.WorkerHealth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class PlacerTest {
  private static final SchedulerProfile PACK = SchedulerProfile.OPTIMIZE_UTILIZATION;
  private static final SchedulerProfile SPREAD = SchedulerProfile.DISTRIBUTE_LOAD;

  private static Map<String, String> placements(PlacementPlan plan) {
    Map<String, String> m = new HashMap<>();
    plan.placed().forEach(p -> m.put(p.vm(), p.worker()));
    return m;
  }

  static Stream<Arguments> profiles() {
    return Stream.of(
        Arguments.of(PACK, Map.of("a", "w1", "b", "w1", "c", "w1")),
        Arguments.of(SPREAD, Map.of("a", "w1", "b", "w2", "c", "w3")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("profiles")
  void threeEmptyWorkersAndThreeOneCpuVms(SchedulerProfile profile, Map<String, String> expected) {
    PlacementPlan plan =
        Placer.place(
            List.of(ready("w3", 8), ready("w1", 8), ready("w2", 8)),
            List.of(),
            List.of(vm("a", 1, 1), vm("b", 2, 1), vm("c", 3, 1)),
            profile);
    assertEquals(expected, placements(plan));
    assertTrue(plan.pending().isEmpty());
  }

  @Test
  void packingPrefersTheFullestAndSpreadingTheEmptiestByWhatTheyAlreadyHold() {
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 8));
    List<Holding> held = List.of(holding("w2", 4));
    assertEquals(
        "w2", placements(Placer.place(workers, held, List.of(vm("x", 1, 1)), PACK)).get("x"));
    assertEquals(
        "w1", placements(Placer.place(workers, held, List.of(vm("x", 1, 1)), SPREAD)).get("x"));
  }

  @Test
  void aVmNeedingALabelNoWorkerHasWaitsWithThatReasonThenIsPlacedWhenOneArrives() {
    List<PendingVm> pending = List.of(vm("needs-ssd", 1, 1, Map.of("disk", "ssd")));
    PlacementPlan before = Placer.place(List.of(ready("w1", 8)), List.of(), pending, PACK);
    assertTrue(before.placed().isEmpty());
    assertEquals(
        "fits no worker of the cluster: none has label disk=ssd", before.pending().get(0).reason());
    assertTrue(before.pending().get(0).fitsNowhere(), "no worker of the cluster has it");
    PlacementPlan offline =
        Placer.place(
            List.of(
                health(withLabels(ready("w2", 8), Map.of("disk", "ssd")), WorkerHealth.OFFLINE)),
            List.of(),
            pending,
            PACK);
    assertEquals("no worker is ready and unpaused (1 offline)", offline.pending().get(0).reason());
    assertFalse(offline.pending().get(0).fitsNowhere(), "one that has it may come back");

    List<Candidate> after =
        List.of(ready("w1", 8), withLabels(ready("w2", 8), Map.of("disk", "ssd")));
    assertEquals(
        Map.of("needs-ssd", "w2"), placements(Placer.place(after, List.of(), pending, PACK)));
  }

  @Test
  void aPausedWorkerKeepsItsVmsAndGetsNoNewOnes() {
    List<Candidate> workers = List.of(paused(ready("w1", 8)), ready("w2", 8));
    PlacementPlan plan =
        Placer.place(workers, List.of(holding("w1", 4)), List.of(vm("new", 1, 1)), PACK);
    assertEquals(
        Map.of("new", "w2"), placements(plan), "the paused w1 is fuller but takes nothing");

    PlacementPlan onlyPaused =
        Placer.place(List.of(paused(ready("w1", 8))), List.of(), List.of(vm("new", 1, 1)), PACK);
    assertEquals(
        "no worker is ready and unpaused (1 paused)", onlyPaused.pending().get(0).reason());
  }

  @Test
  void onlyReadyWorkersTakePlacements() {
    for (WorkerHealth h : WorkerHealth.values()) {
      PlacementPlan plan =
          Placer.place(List.of(health(ready("w1", 8), h)), List.of(), List.of(vm("v", 1, 1)), PACK);
      assertEquals(h == WorkerHealth.READY ? 1 : 0, plan.placed().size(), h.wireName());
    }
  }

  @Test
  void aTooLargeVmAtTheHeadDoesNotBlockASmallOneBehindIt() {
    PlacementPlan plan =
        Placer.place(
            List.of(ready("w1", 8)),
            List.of(),
            List.of(vm("huge", 1, 16), vm("small", 2, 1)),
            PACK);
    assertEquals(Map.of("small", "w1"), placements(plan));
    assertEquals(
        "fits no worker of the cluster: needs cpu 16; the largest worker that could take it has 8 in all",
        plan.pending().get(0).reason());
  }

  @Test
  void everyResourceShortIsNamedNotOnlyTheFirst() {
    PendingVm greedy =
        PendingVm.builder("greedy", 1, "process", Map.of("cpu", 16L, "memory", 65536L)).build();
    assertEquals(
        "fits no worker of the cluster: needs cpu 16 and memory 65536; the largest worker that"
            + " could take it has cpu 8 and memory 16384 in all",
        Placer.place(List.of(ready("w1", 8)), List.of(), List.of(greedy), PACK)
            .pending()
            .get(0)
            .reason());
    PendingVm both =
        PendingVm.builder("both", 1, "process", Map.of("cpu", 4L, "memory", 16000L)).build();
    assertEquals(
        "needs cpu 4 and memory 16000; the most free on a matching worker is cpu 2 and memory"
            + " 15872",
        Placer.place(List.of(ready("w1", 8)), List.of(holding("w1", 6)), List.of(both), PACK)
            .pending()
            .get(0)
            .reason());
  }

  @Test
  void oldestFirstWhenCapacityIsShort() {
    PlacementPlan plan =
        Placer.place(
            List.of(ready("w1", 2)), List.of(), List.of(vm("young", 9, 2), vm("old", 3, 2)), PACK);
    assertEquals(Map.of("old", "w1"), placements(plan));
    assertEquals("young", plan.pending().get(0).vm());
  }

  /** Each row: the pending VMs as name:seq:priority, one worker with room for two; who goes. */
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "a:1:50 b:2:50 c:3:50 | a b",
        "a:1:50 b:2:50 c:3:90 | c a",
        "a:1:10 b:2:20 c:3:30 | c b",
        "a:1:0 b:2:100 c:3:100 | b c",
        "a:5:70 b:2:70 c:3:60 | b a",
      })
  void higherPriorityFirstThenOldestWhenCapacityIsShort(String vms, String expected) {
    List<PendingVm> pending = new ArrayList<>();
    for (String v : vms.split(" ")) {
      String[] f = v.split(":");
      pending.add(vm(f[0], Long.parseLong(f[1]), 1).withPriority(Integer.parseInt(f[2])));
    }
    PlacementPlan plan = Placer.place(List.of(ready("w1", 2)), List.of(), pending, PACK);
    assertEquals(
        java.util.Set.of(expected.split(" ")), placements(plan).keySet(), "placed from " + vms);
    assertEquals(1, plan.pending().size());
  }

  /**
   * Each row: a VM's constraint; where it goes among w1 (zone a), w2 (zone b, paused), w3 (none).
   */
  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "zone | notIn  | b   | w1 | ",
        "zone | in     | a;b | w1 | ",
        "zone | notExists |  | w3 | ",
        "zone | =      | b   |    | no ready worker meets zone = b (2 of 2 failing it)",
        "zone | regexp | [ab] | w1 | ",
        "zone | in     | c   |    | fits no worker of the cluster: none meets zone in [c] (3 of 3 failing it)",
      })
  void constraintsOnLabelsAdmitWorkersAndNameTheOneUnmet(
      String label, String operator, String values, String worker, String reason) {
    List<Candidate> workers =
        List.of(
            withLabels(ready("w1", 8), Map.of("zone", "a")),
            paused(withLabels(ready("w2", 8), Map.of("zone", "b"))),
            ready("w3", 8));
    PendingVm vm =
        vm("c", 1, 1)
            .withConstraints(
                List.of(
                    new dev.rota.core.model.LabelConstraint(
                        label, operator, values == null ? List.of() : List.of(values.split(";")))));
    PlacementPlan plan = Placer.place(workers, List.of(), List.of(vm), PACK);
    assertEquals(worker, placements(plan).get("c"));
    assertEquals(
        reason, plan.pending().isEmpty() ? null : plan.pending().get(0).reason(), "why it waits");
  }

  @Test
  void aWorkerReportingLessCapacityThanItHoldsHasNothingFree() {
    // w1 holds 8 cpu but now reports 4: saturating arithmetic must not wrap into "lots free".
    PlacementPlan plan =
        Placer.place(
            List.of(ready("w1", 4)), List.of(holding("w1", 8)), List.of(vm("v", 1, 1)), PACK);
    assertTrue(plan.placed().isEmpty());
    assertEquals(
        "needs cpu 1; the most free on a matching worker is 0", plan.pending().get(0).reason());
  }

  @Test
  void resourcesAWorkerDoesNotListCountAsZero() {
    PendingVm gpu = PendingVm.builder("gpu", 1, "process", Map.of("gpu", 1L)).build();
    PlacementPlan plan = Placer.place(List.of(ready("w1", 8)), List.of(), List.of(gpu), PACK);
    assertEquals(
        "fits no worker of the cluster: needs gpu 1; the largest worker that could take it has 0 in all",
        plan.pending().get(0).reason());
    assertTrue(plan.pending().get(0).fitsNowhere());
  }

  @Test
  void reasonsNameWhatIsMissing() {
    assertEquals(
        "no workers are registered",
        Placer.place(List.of(), List.of(), List.of(vm("v", 1, 1)), PACK).pending().get(0).reason());
    PendingVm qemu = PendingVm.builder("q", 1, "qemu", Map.of("cpu", 1L)).build();
    assertEquals(
        "fits no worker of the cluster: none offers runtime qemu",
        Placer.place(List.of(ready("w1", 8)), List.of(), List.of(qemu), PACK)
            .pending()
            .get(0)
            .reason());
    List<Candidate> split =
        List.of(
            withLabels(ready("w1", 8), Map.of("disk", "ssd")),
            withLabels(ready("w2", 8), Map.of("gpu", "a100")));
    assertEquals(
        "fits no worker of the cluster: none has all of the labels disk=ssd, gpu=a100",
        Placer.place(
                split,
                List.of(),
                List.of(vm("v", 1, 1, Map.of("disk", "ssd", "gpu", "a100"))),
                PACK)
            .pending()
            .get(0)
            .reason());
    List<Candidate> halves =
        List.of(
            new Candidate(
                "w1",
                Map.of("cpu", 8L, "memory", 100L),
                Map.of(),
                List.of("process"),
                WorkerHealth.READY,
                false),
            new Candidate(
                "w2",
                Map.of("cpu", 1L, "memory", 9000L),
                Map.of(),
                List.of("process"),
                WorkerHealth.READY,
                false));
    PendingVm both =
        PendingVm.builder("both", 1, "process", Map.of("cpu", 4L, "memory", 4096L)).build();
    assertEquals(
        "fits no worker of the cluster: needs cpu=4, memory=4096 together; no worker has all of it in all",
        Placer.place(halves, List.of(), List.of(both), PACK).pending().get(0).reason());
  }

  @Test
  void aVmAvoidsTheWorkerItsTaskCouldNotStartOnWithoutBlockingOthers() {
    List<Candidate> workers = List.of(ready("w1", 8), ready("w2", 8));
    PendingVm avoiding =
        PendingVm.builder("a", 1, "process", Map.of("cpu", 1L)).avoid("w1").build();
    PlacementPlan plan = Placer.place(workers, List.of(), List.of(avoiding, vm("b", 2, 1)), PACK);
    assertEquals(
        Map.of("a", "w2", "b", "w2"),
        placements(plan),
        "a goes elsewhere; b, like a, packs onto w2");

    PlacementPlan onlyOne =
        Placer.place(List.of(ready("w1", 8)), List.of(), List.of(avoiding, vm("b", 2, 1)), PACK);
    assertEquals(Map.of("b", "w1"), placements(onlyOne), "the avoidance is a's alone");
    assertTrue(
        onlyOne.pending().get(0).reason().startsWith("avoiding worker w1"),
        onlyOne.pending().get(0).reason());
  }

  /** A VM whose persistent disk is on {@code diskOn}, asking for {@code cpu}. */
  private static PendingVm withDisk(String name, long cpu, String diskOn) {
    return PendingVm.builder(name, 1, "process", Map.of("cpu", cpu, "memory", 512L))
        .diskOn(diskOn)
        .build();
  }

  @ParameterizedTest(name = "disk on w2, {0}: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          w2 has room           | w2 |
          w2 is full            |    | its disk (or saved memory) is on worker w2, which has no room for it now
          w2 is paused          |    | its disk (or saved memory) is on worker w2, which cannot take it now (not registered, not ready, paused or draining)
          w2 is not registered  |    | its disk (or saved memory) is on worker w2, which cannot take it now (not registered, not ready, paused or draining)
          """)
  void aVmWithAPersistentDiskGoesToItsWorkerOrWaitsSayingWhy(
      String w2, String placedOn, String reason) {
    List<Candidate> workers = new java.util.ArrayList<>(List.of(ready("w1", 8), ready("w3", 8)));
    List<Holding> holdings = new java.util.ArrayList<>();
    switch (w2) {
      case "w2 has room" -> workers.add(ready("w2", 8));
      case "w2 is full" -> {
        workers.add(ready("w2", 8));
        holdings.add(holding("w2", 8));
      }
      case "w2 is paused" -> workers.add(paused(ready("w2", 8)));
      default -> {}
    }
    PlacementPlan plan = Placer.place(workers, holdings, List.of(withDisk("kept", 2, "w2")), PACK);
    if (placedOn != null) {
      assertEquals(Map.of("kept", placedOn), placements(plan));
    } else {
      assertEquals(Map.of(), placements(plan), "never elsewhere: w1 and w3 have room");
      assertEquals(reason, plan.pending().get(0).reason());
    }
  }

  @ParameterizedTest(name = "disk on w2, which lends it, {0}: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          w2 has room           | w2 |
          w2 is full            |    | its disk (or saved memory) is on worker w2, which has no room for it now
          w2 is paused          | w1 |
          w2 paused, others full|    | its disk (or saved memory) is on worker w2, which cannot take it now (not registered, not ready, paused or draining); nor has any other worker room to copy it to
          """)
  void aVmWhoseDiskWorkerTakesNoVmsGoesElsewhereWithACopyWhenThatWorkerLendsIt(
      String w2, String placedOn, String reason) {
    List<Candidate> workers = new java.util.ArrayList<>(List.of(ready("w1", 8), ready("w3", 8)));
    List<Holding> holdings = new java.util.ArrayList<>();
    switch (w2) {
      case "w2 has room" -> workers.add(ready("w2", 8));
      case "w2 is paused" -> workers.add(paused(ready("w2", 8)));
      case "w2 is full" -> {
        workers.add(ready("w2", 8));
        holdings.add(holding("w2", 8));
      }
      default -> {
        workers.add(paused(ready("w2", 8)));
        holdings.add(holding("w1", 8));
        holdings.add(holding("w3", 8));
      }
    }
    PlacementPlan plan =
        Placer.place(
            workers, holdings, List.of(withDisk("kept", 2, "w2")), PACK, java.util.Set.of("w2"));
    if (placedOn != null) {
      assertEquals(Map.of("kept", placedOn), placements(plan));
    } else {
      assertEquals(Map.of(), placements(plan));
      assertEquals(reason, plan.pending().get(0).reason());
    }
  }

  /**
   * Over random clusters of labelled workers and VMs with random constraints, every placement meets
   * every constraint of its VM, and a VM that waits for want of one names a constraint.
   */
  @Test
  void noPlacementEverBreaksAConstraint() {
    Random random = new Random(72);
    String[] zones = {"a", "b", "c"};
    String[] kernels = {"5.10.0", "6.1.0-amd64", "6.12.3", "7.0"};
    List<java.util.function.Supplier<dev.rota.core.model.LabelConstraint>> kinds =
        List.of(
            () -> constraint("zone", "=", zones[random.nextInt(3)]),
            () -> constraint("zone", "!=", zones[random.nextInt(3)]),
            () -> constraint("zone", "in", zones[random.nextInt(3)], zones[random.nextInt(3)]),
            () -> constraint("zone", "notIn", zones[random.nextInt(3)]),
            () -> constraint("gpu", "exists"),
            () -> constraint("gpu", "notExists"),
            () -> constraint("name", "regexp", "w[0-" + random.nextInt(9) + "]"),
            () -> constraint("kernel", "version", ">= 6.1, < 7"),
            () -> constraint("kernel", "version", "< 6"));
    int placedCount = 0;
    for (int round = 0; round < 300; round++) {
      List<Candidate> workers = new ArrayList<>();
      for (int w = 0; w < 1 + random.nextInt(8); w++) {
        Map<String, String> labels = new HashMap<>();
        labels.put("name", "w" + w);
        if (random.nextInt(4) > 0) {
          labels.put("zone", zones[random.nextInt(3)]);
        }
        if (random.nextBoolean()) {
          labels.put("gpu", "yes");
        }
        labels.put("kernel", kernels[random.nextInt(kernels.length)]);
        workers.add(withLabels(ready("w" + w, 4 + random.nextInt(12)), labels));
      }
      List<PendingVm> pending = new ArrayList<>();
      Map<String, PendingVm> byName = new HashMap<>();
      for (int v = 0; v < random.nextInt(30); v++) {
        List<dev.rota.core.model.LabelConstraint> rules = new ArrayList<>();
        for (int c = 0; c < random.nextInt(3); c++) {
          rules.add(kinds.get(random.nextInt(kinds.size())).get());
        }
        PendingVm vm = vm("v" + v, v, 1 + random.nextInt(4)).withConstraints(rules);
        pending.add(vm);
        byName.put(vm.name(), vm);
      }
      Map<String, Candidate> workerByName = new HashMap<>();
      workers.forEach(w -> workerByName.put(w.name(), w));
      PlacementPlan plan =
          Placer.place(workers, List.of(), pending, random.nextBoolean() ? PACK : SPREAD);
      for (PlacementPlan.Placement p : plan.placed()) {
        List<dev.rota.core.model.LabelConstraint> unmet =
            dev.rota.core.model.LabelConstraint.unmet(
                byName.get(p.vm()).constraints(), workerByName.get(p.worker()).labels());
        assertTrue(unmet.isEmpty(), "round " + round + ": " + p + " breaks " + unmet);
        placedCount++;
      }
      for (PlacementPlan.Unplaced u : plan.pending()) {
        boolean someWorkerMeetsAll =
            workers.stream()
                .anyMatch(
                    w ->
                        dev.rota.core.model.LabelConstraint.unmet(
                                byName.get(u.vm()).constraints(), w.labels())
                            .isEmpty());
        if (!someWorkerMeetsAll) {
          assertTrue(u.reason().contains(" meets "), "round " + round + ": " + u);
        }
      }
    }
    assertTrue(placedCount > 1000, "placements to check: " + placedCount);
  }

  private static dev.rota.core.model.LabelConstraint constraint(
      String label, String operator, String... values) {
    return new dev.rota.core.model.LabelConstraint(label, operator, List.of(values));
  }

  @Test
  void capacityIsNeverOversubscribedWithinATerm() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      List<Candidate> workers = new ArrayList<>();
      for (int w = 0; w < 1 + random.nextInt(8); w++) {
        workers.add(
            new Candidate(
                "w" + w,
                Map.of("cpu", (long) random.nextInt(16), "memory", (long) random.nextInt(8192)),
                Map.of(),
                List.of("process"),
                WorkerHealth.READY,
                false));
      }
      List<Holding> held = new ArrayList<>();
      for (Candidate w : workers) {
        if (random.nextBoolean()) {
          held.add(
              new Holding(
                  w.name(),
                  Map.of("cpu", (long) random.nextInt(20), "memory", (long) random.nextInt(4096))));
        }
      }
      List<PendingVm> pending = new ArrayList<>();
      for (int v = 0; v < random.nextInt(40); v++) {
        pending.add(
            PendingVm.builder(
                    "v" + v,
                    v,
                    "process",
                    Map.of("cpu", (long) random.nextInt(6), "memory", (long) random.nextInt(3000)))
                .build());
      }
      SchedulerProfile profile = random.nextBoolean() ? PACK : SPREAD;
      PlacementPlan plan = Placer.place(workers, held, pending, profile);

      Map<String, PendingVm> byName =
          pending.stream().collect(Collectors.toMap(PendingVm::name, v -> v));
      for (Candidate w : workers) {
        Map<String, Long> before = new HashMap<>();
        held.stream()
            .filter(h -> h.worker().equals(w.name()))
            .forEach(h -> h.request().forEach((k, n) -> before.merge(k, n, Long::sum)));
        Map<String, Long> added = new HashMap<>();
        plan.placed().stream()
            .filter(p -> p.worker().equals(w.name()))
            .forEach(
                p -> byName.get(p.vm()).request().forEach((k, n) -> added.merge(k, n, Long::sum)));
        for (String r : added.keySet()) {
          long free = Math.max(0, w.capacity().getOrDefault(r, 0L) - before.getOrDefault(r, 0L));
          assertTrue(
              added.get(r) <= free, "round " + round + ": " + w.name() + " over-committed on " + r);
        }
      }
      assertEquals(
          pending.size(),
          plan.placed().size() + plan.pending().size(),
          "every VM placed or explained");
    }
  }
}
