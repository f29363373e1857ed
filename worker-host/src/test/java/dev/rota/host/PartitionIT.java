package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A real network partition: worker w1's agent runs in a network namespace of its own, and its link
 * is cut for longer than the worker's lost and offline deadlines, then healed. Its VMs ({@code
 * Always}) are placed on w2 meanwhile, and the processes are sampled every 200 ms throughout: no VM
 * ever has two live processes, because w1's agent stopped them at its fence before the controller
 * placed them elsewhere. One more VM there says {@code "disconnect": {"replace": false}}: it runs
 * on through the cut, its one process untouched, and is never placed elsewhere. The figures (when
 * the old copies stopped, when the new ones ran) are printed and kept in {@code
 * target/partition.txt}; nothing here asserts speed.
 */
class PartitionIT {
  private static final int VMS = 5;
  private static final int FIRST_SLEEP = 950_000;

  @Test
  void aWorkerCutOffStopsItsVmsBeforeTheyRunElsewhereAndNoVmEverRunsTwice() throws Exception {
    try (NetworkNamespace net = NetworkNamespace.create();
        ProductionStack stack =
            ProductionStack.start(
                ProductionStack.folder("partition"),
                1,
                List.of(
                    new ProductionStack.AgentPlace(net.name(), net.address()),
                    ProductionStack.AgentPlace.LOOPBACK),
                ProductionStack.QUICK_TO_LOSE_WORKERS,
                RealServices.newPostgresDatabase(),
                false,
                net.hostAddress(),
                RealServices::temporal)) {
      RotaClient api = stack.admin(0);
      assertEquals(200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":true}").status());
      Set<String> vms = new TreeSet<>();
      Map<String, String> sleepOf = new TreeMap<>();
      for (int i = 0; i < VMS; i++) {
        String name = "walled-" + i;
        String sleep = String.valueOf(FIRST_SLEEP + i);
        assertEquals(
            201,
            api.api(
                    "POST",
                    "/v1/vms",
                    "{\"name\":\""
                        + name
                        + "\",\"command\":[\"sleep\",\""
                        + sleep
                        + "\"],\"restartPolicy\":\"Always\"}")
                .status());
        vms.add(name);
        sleepOf.put(name, sleep);
      }
      String kept = "kept-through";
      String keptSleep = String.valueOf(FIRST_SLEEP + 10);
      assertEquals(
          201,
          api.api(
                  "POST",
                  "/v1/vms",
                  "{\"name\":\""
                      + kept
                      + "\",\"command\":[\"sleep\",\""
                      + keptSleep
                      + "\"],\"restartPolicy\":\"Always\",\"disconnect\":{\"replace\":false}}")
              .status());
      eventually(
          "every VM running on w1, in the namespace",
          () ->
              java.util.stream.Stream.concat(vms.stream(), Stream.of(kept))
                  .allMatch(
                      vm -> {
                        Map<String, Object> row = api.vm(vm);
                        return "running".equals(row.get("status"))
                            && "w1".equals(row.get("worker"));
                      }));
      assertEquals(
          200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":false}").status());
      Map<String, Long> old = new TreeMap<>();
      Vms.sleeping()
          .forEach(
              (arg, pids) ->
                  sleepOf.forEach(
                      (vm, sleep) -> {
                        if (sleep.equals(arg)) {
                          assertEquals(1, pids.size(), vm + ": " + pids);
                          old.put(vm, pids.get(0));
                        }
                      }));
      assertEquals(VMS, old.size(), "each VM's process found: " + old);
      long keptPid = Vms.onlyOneProcessEach(Map.of(kept, keptSleep)).get(kept);

      Map<String, String> twice = new ConcurrentHashMap<>();
      Map<String, Instant> oldGone = new ConcurrentHashMap<>();
      ProcessSampler sampler =
          new ProcessSampler(
              live -> {
                sleepOf.forEach(
                    (vm, sleep) -> {
                      List<Long> pids = live.getOrDefault(sleep, List.of());
                      if (pids.size() > 1) {
                        twice.putIfAbsent(vm, Instant.now() + ": " + pids);
                      }
                      if (!pids.contains(old.get(vm))) {
                        oldGone.putIfAbsent(vm, Instant.now());
                      }
                    });
                if (!live.getOrDefault(keptSleep, List.of()).equals(List.of(keptPid))) {
                  twice.putIfAbsent(
                      kept, Instant.now() + ": not its one process: " + live.get(keptSleep));
                }
              });

      Instant cutAt = Instant.now();
      net.cut();
      eventually(
          "every VM running again, on w2",
          Duration.ofSeconds(90),
          () ->
              vms.stream()
                  .allMatch(
                      vm -> {
                        Map<String, Object> row = api.vm(vm);
                        return "running".equals(row.get("status"))
                            && "w2".equals(row.get("worker"));
                      }));
      Duration movedAfter = Duration.between(cutAt, Instant.now());
      net.heal();
      Instant healedAt = Instant.now();
      eventually(
          "w1 ready again once healed",
          Duration.ofSeconds(90),
          () ->
              api.items("/v1/workers").stream()
                  .anyMatch(w -> "w1".equals(w.get("name")) && "ready".equals(w.get("health"))));
      eventually(
          "w1 keeps nothing of the VMs that moved",
          Duration.ofSeconds(90),
          () ->
              Vms.sleeping().values().stream().flatMap(List::stream).noneMatch(old::containsValue));
      sampler.close();

      assertEquals(Map.of(), twice, "no VM ever had two live processes");
      Map<String, Long> now = Vms.onlyOneProcessEach(sleepOf);
      assertEquals(
          keptPid,
          Vms.onlyOneProcessEach(Map.of(kept, keptSleep)).get(kept),
          "the VM that keeps through a cut ran on, its one process untouched");
      Map<String, Object> keptRow = api.vm(kept);
      assertEquals("w1", keptRow.get("worker"), "never placed elsewhere: " + keptRow);
      assertEquals(
          0,
          ((Number) keptRow.get("restartCount")).intValue(),
          "nor restarted: " + api.eventTypes(kept));
      for (String vm : vms) {
        assertTrue(oldGone.containsKey(vm), vm + "'s old process stopped");
        assertTrue(now.get(vm) != old.get(vm).longValue(), vm + " runs a new process on w2");
        assertEquals("w2", api.vm(vm).get("worker"));
      }
      Duration oldStopped =
          oldGone.values().stream()
              .max(Instant::compareTo)
              .map(t -> Duration.between(cutAt, t))
              .orElseThrow();
      String figures =
          String.format(
              "partition: w1's link cut, lost after 4 s, offline (and fence) after 6 s more; %d Always VMs on it%n"
                  + "  the last old process stopped %.1f s after the cut; every VM running on w2 %.1f s after it;%n"
                  + "  healed after %.1f s; no VM ever had two live processes (sampled every 200 ms);%n"
                  + "  the VM with disconnect.replace false ran on, its one process untouched, on w1%n",
              VMS,
              oldStopped.toMillis() / 1000.0,
              movedAfter.toMillis() / 1000.0,
              Duration.between(cutAt, healedAt).toMillis() / 1000.0);
      System.out.print(figures);
      Files.writeString(Path.of("target", "partition.txt"), figures);
    }
  }
}
