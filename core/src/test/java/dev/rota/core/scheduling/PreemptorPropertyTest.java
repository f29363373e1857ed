package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.atPriority;
import static dev.rota.core.scheduling.Fixtures.evicted;
import static dev.rota.core.scheduling.Fixtures.ready;
import static dev.rota.core.scheduling.Fixtures.withDisk;
import static dev.rota.core.scheduling.Fixtures.withLabels;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.Priority;
import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.VmStatus;
import dev.rota.core.scheduling.placement.PlacementStack;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Over random clusters (workers with and without a label, running VMs of random priorities,
 * policies, disks and sets, waiting VMs of random sizes and priorities), no preemption ever breaks
 * a rule: no victim within the gap of the VM it makes room for, none without a restart policy or
 * with a persistent disk or already evicted, none of a set beyond its budget, none twice, none on a
 * worker the waiting VM may not go to; and every worker's room, once its victims and what was on
 * its way out are gone, holds every waiting VM that counted on it.
 */
class PreemptorPropertyTest {
  private static final int CLUSTERS = 2_000;

  @Test
  void noPreemptionBreaksARule() {
    Random random = new Random(72);
    int evictions = 0;
    for (int c = 0; c < CLUSTERS; c++) {
      evictions += oneCluster(random, c);
    }
    assertTrue(evictions > CLUSTERS / 4, "the clusters made evictions to check: " + evictions);
  }

  private static int oneCluster(Random random, int cluster) {
    int workerCount = 1 + random.nextInt(5);
    List<Candidate> workers = new ArrayList<>();
    Map<String, Candidate> byName = new HashMap<>();
    for (int i = 0; i < workerCount; i++) {
      Candidate w = ready("w" + i, 2 + random.nextInt(7));
      if (random.nextInt(3) == 0) {
        w = withLabels(w, Map.of("gpu", "yes"));
      }
      workers.add(w);
      byName.put(w.name(), w);
    }
    List<Holding> holdings = new ArrayList<>();
    List<Holding> leaving = new ArrayList<>();
    List<Preemptor.Running> running = new ArrayList<>();
    Map<String, VmSnapshot> vms = new HashMap<>();
    Map<String, Long> used = new HashMap<>();
    int seq = 0;
    for (Candidate w : workers) {
      long free = w.capacity().get("cpu");
      while (free > 0 && random.nextInt(5) > 0) {
        long cpu = 1 + random.nextInt((int) Math.min(free, 3));
        free -= cpu;
        String set = random.nextInt(3) == 0 ? "set" + random.nextInt(2) : null;
        Map<String, Long> request = Map.of("cpu", cpu);
        holdings.add(new Holding(w.name(), request, set));
        if (random.nextInt(10) == 0) {
          leaving.add(new Holding(w.name(), request, set));
          continue;
        }
        String name = "v" + ++seq;
        VmSnapshot vm =
            atPriority(
                VmSnapshot.builder(name, seq, "process", request)
                    .status(random.nextInt(4) == 0 ? VmStatus.SCHEDULED : VmStatus.RUNNING)
                    .set(set)
                    .restartPolicy(
                        random.nextInt(4) == 0 ? RestartPolicy.NEVER : RestartPolicy.ON_FAILURE)
                    .build(),
                random.nextInt(101));
        vm = random.nextInt(8) == 0 ? withDisk(vm, w.name(), false) : vm;
        vm = random.nextInt(10) == 0 ? evicted(vm) : vm;
        vms.put(name, vm);
        running.add(new Preemptor.Running(vm, w.name()));
      }
      used.put(w.name(), w.capacity().get("cpu") - free);
    }
    Map<String, Integer> allowances = Map.of("set0", random.nextInt(3), "set1", random.nextInt(2));
    List<PendingVm> waiting = new ArrayList<>();
    Map<String, PendingVm> waitingByName = new HashMap<>();
    int waitingCount = 1 + random.nextInt(4);
    for (int i = 0; i < waitingCount; i++) {
      PendingVm p =
          PendingVm.builder("p" + i, 1000 + i, "process", Map.of("cpu", 1L + random.nextInt(4)))
              .labels(random.nextInt(4) == 0 ? Map.of("gpu", "yes") : Map.of())
              .build()
              .withPriority(random.nextInt(101));
      waiting.add(p);
      waitingByName.put(p.name(), p);
    }

    Preemptor.Outcome outcome =
        Preemptor.plan(workers, holdings, leaving, running, waiting, allowances);

    String at = "cluster " + cluster + ": ";
    Set<String> evicted = new HashSet<>();
    Map<String, Integer> bySet = new HashMap<>();
    Map<String, Long> freed = new HashMap<>();
    Map<String, Long> claimed = new HashMap<>();
    Map<String, String> evictingOn = new HashMap<>();
    for (Preemptor.Preemption e : outcome.preemptions()) {
      VmSnapshot victim = vms.get(e.vm());
      PendingVm forVm = waitingByName.get(e.forVm());
      assertTrue(
          victim.priority() <= forVm.priority() - Priority.PREEMPTION_GAP,
          at + "a peer evicted: " + e);
      assertTrue(victim.restarts(), at + "a VM nothing starts again evicted: " + e);
      assertFalse(victim.persistentDisk(), at + "a persistent disk evicted: " + e);
      assertFalse(victim.evicted(), at + "evicted again: " + e);
      assertTrue(evicted.add(e.vm()), at + "evicted twice: " + e);
      assertTrue(
          PlacementStack.feasible(byName.get(e.worker()), forVm),
          at + "evicted for a VM that may not go there: " + e);
      String was = evictingOn.putIfAbsent(e.forVm(), e.worker());
      assertTrue(was == null || was.equals(e.worker()), at + "one worker per VM: " + e);
      if (victim.set() != null) {
        int n = bySet.merge(victim.set(), 1, Integer::sum);
        assertTrue(n <= allowances.get(victim.set()), at + "beyond the set's budget: " + e);
      }
      freed.merge(e.worker(), victim.request().get("cpu"), Long::sum);
    }
    evictingOn.forEach(
        (vm, worker) ->
            claimed.merge(worker, waitingByName.get(vm).request().get("cpu"), Long::sum));
    outcome
        .reasons()
        .forEach(
            (vm, why) -> {
              if (why.startsWith("room is being freed for it on worker ")) {
                String worker = why.split(" ")[8].replace(":", "");
                claimed.merge(worker, waitingByName.get(vm).request().get("cpu"), Long::sum);
              }
            });
    for (Candidate w : workers) {
      long leavingThere =
          leaving.stream()
                  .filter(h -> h.worker().equals(w.name()))
                  .mapToLong(h -> h.request().get("cpu"))
                  .sum()
              + running.stream()
                  .filter(r -> r.worker().equals(w.name()) && r.vm().evicted())
                  .mapToLong(r -> r.vm().request().get("cpu"))
                  .sum();
      long staying = used.get(w.name()) - leavingThere - freed.getOrDefault(w.name(), 0L);
      assertTrue(
          staying + claimed.getOrDefault(w.name(), 0L) <= w.capacity().get("cpu"),
          at + "worker " + w.name() + " overcommitted: " + outcome);
    }
    return outcome.preemptions().size();
  }
}
