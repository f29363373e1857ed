package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.NamespaceUsage;
import dev.rota.core.model.Quota;
import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.scheduling.placement.WorkerClasses;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The placer keeps each namespace within its quota, counting what its VMs on workers hold: a VM it
 * leaves no room for waits, saying which limit and how much, and the VMs behind it still go.
 */
class QuotaPlacementTest {
  private static final SchedulerProfile PACK = SchedulerProfile.OPTIMIZE_UTILIZATION;

  private static PendingVm vm(String name, long seq, String namespace, long cpu) {
    return PendingVm.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L))
        .namespace(namespace)
        .build();
  }

  private static PlacementPlan place(
      List<PendingVm> pending, Map<String, Quota> quotas, Map<String, NamespaceUsage> running) {
    NamespaceBudgets budgets = new NamespaceBudgets(quotas);
    running.forEach(budgets::take);
    return Placer.place(
        new WorkerClasses(List.of(Fixtures.ready("w1", 16), Fixtures.ready("w2", 16))),
        List.of(),
        pending,
        PACK,
        Set.of(),
        budgets);
  }

  @Test
  void aVmItsQuotaHasNoRoomForWaitsNamingTheLimitAndThoseBehindItStillGo() {
    PlacementPlan plan =
        place(
            List.of(
                vm("big", 1, "ci", 3),
                vm("s1", 2, "ci", 1),
                vm("s2", 3, "ci", 1),
                vm("s3", 4, "ci", 1),
                vm("other", 5, "web", 8)),
            Map.of("ci", new Quota(4L, null, null, null)),
            Map.of("ci", new NamespaceUsage(2, 1024, 2, 0)));
    assertEquals(List.of("s1", "s2", "other"), plan.placed().stream().map(p -> p.vm()).toList());
    assertEquals(
        List.of(
            "big: waits for room in namespace ci's quota: cpu quota of 4: 2 running, 3 more asked",
            "s3: waits for room in namespace ci's quota: cpu quota of 4: 4 running, 1 more asked"),
        plan.pending().stream().map(u -> u.vm() + ": " + u.reason()).toList(),
        "what this term placed counts as running");
  }

  @Test
  void aQuotaLoweredBelowWhatRunsStartsNoMoreOfItsKind() {
    Map<String, Quota> lowered = Map.of("ci", new Quota(null, null, 2L, null));
    PlacementPlan plan =
        place(
            List.of(vm("a", 1, "ci", 1), vm("b", 2, "default", 1)),
            lowered,
            Map.of("ci", new NamespaceUsage(5, 2560, 5, 0)));
    assertEquals(List.of("b"), plan.placed().stream().map(p -> p.vm()).toList());
    assertEquals(
        "waits for room in namespace ci's quota: vms quota of 2: 5 running, 1 more asked",
        plan.pending().get(0).reason());
  }

  @Test
  void noPlacementEverTakesANamespacePastItsQuota() {
    Random random = new Random(7);
    String[] namespaces = {"default", "ci", "web"};
    int placedCount = 0;
    int waitedForQuota = 0;
    for (int round = 0; round < 300; round++) {
      Map<String, Quota> quotas = new HashMap<>();
      Map<String, NamespaceUsage> running = new HashMap<>();
      for (String ns : namespaces) {
        if (random.nextBoolean()) {
          quotas.put(
              ns,
              new Quota(
                  random.nextBoolean() ? (long) random.nextInt(12) : null,
                  random.nextBoolean() ? 512L * random.nextInt(12) : null,
                  random.nextBoolean() ? (long) random.nextInt(8) : null,
                  null));
        }
        if (random.nextBoolean()) {
          int n = random.nextInt(6);
          running.put(ns, new NamespaceUsage(n * 2L, n * 512L, n, 0));
        }
      }
      List<PendingVm> pending = new ArrayList<>();
      Map<String, PendingVm> byName = new HashMap<>();
      for (int v = 0; v < random.nextInt(25); v++) {
        PendingVm vm =
            vm("v" + v, v, namespaces[random.nextInt(namespaces.length)], 1 + random.nextInt(3));
        pending.add(vm);
        byName.put(vm.name(), vm);
      }
      PlacementPlan plan = place(pending, quotas, running);
      Map<String, NamespaceUsage> placedBy = new HashMap<>();
      for (PlacementPlan.Placement p : plan.placed()) {
        PendingVm vm = byName.get(p.vm());
        placedBy.merge(vm.namespace(), vm.usage(), NamespaceUsage::plus);
        placedCount++;
      }
      for (Map.Entry<String, NamespaceUsage> e : placedBy.entrySet()) {
        Quota q = quotas.get(e.getKey());
        if (q == null) {
          continue;
        }
        NamespaceUsage before = running.getOrDefault(e.getKey(), NamespaceUsage.NONE);
        NamespaceUsage after = before.plus(e.getValue());
        String at = "round " + round + ", namespace " + e.getKey() + ": " + after + " of " + q;
        assertTrue(q.cpu() == null || after.cpu() <= Math.max(q.cpu(), before.cpu()), at);
        assertTrue(
            q.memory() == null || after.memory() <= Math.max(q.memory(), before.memory()), at);
        assertTrue(q.vms() == null || after.vms() <= Math.max(q.vms(), before.vms()), at);
      }
      for (PlacementPlan.Unplaced u : plan.pending()) {
        if (u.reason().startsWith("waits for room in namespace")) {
          waitedForQuota++;
        }
      }
    }
    assertTrue(placedCount > 500, "the property was tried on placements: " + placedCount);
    assertTrue(waitedForQuota > 100, "and on quotas that said no: " + waitedForQuota);
  }
}
