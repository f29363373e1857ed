package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Moves with real processes: a set's replicas rebalanced onto a worker that joins, then moved off a
 * drained worker. Every 200 ms the test reads the replicas from the API, then this machine's
 * processes, then the API again. A move is surge first, so a replica may have two processes for a
 * while; but never while the API said, before and after the look at the processes, that it was not
 * moving. And never more replicas with two processes at once than the set's {@code maxUnavailable}.
 * How long the overlaps lasted is kept in {@code target/moves.txt}; nothing here asserts speed.
 */
class MovesIT {
  /**
   * One {@code sleep} for the set's replicas; the task folder a process runs in tells which one it
   * is.
   */
  private static final String SLEEP = "970000";

  private static final int REPLICAS = 4;

  @Test
  void aMoveIsDoneOnlyOnceItsOldCopyIsGoneAndNoMoreOverlapThanMaxUnavailable() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("moves"),
            1,
            2,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_API_INSECURE_HTTP", "true"))) {
      RotaClient api = stack.admin(0);
      assertEquals(
          200,
          api.api("PUT", "/v1/cluster-settings", "{\"schedulerProfile\":\"distribute-load\"}")
              .status());
      assertEquals(200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":true}").status());
      assertEquals(
          201,
          api.api(
                  "POST",
                  "/v1/vm-sets",
                  "{\"name\":\"mv\",\"replicas\":"
                      + REPLICAS
                      + ",\"maxUnavailable\":1,"
                      + "\"template\":{\"command\":[\"sleep\",\""
                      + SLEEP
                      + "\"],\"restartPolicy\":\"Always\"}}")
              .status());
      eventually(
          "every replica running on w1",
          () -> placement(api).values().stream().filter("w1"::equals).count() == REPLICAS);

      Sampler sampler = new Sampler(api);
      sampler.start();
      assertEquals(
          200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":false}").status());
      eventually(
          "rebalanced: two replicas on each worker, no move under way",
          Duration.ofSeconds(90),
          () -> {
            Map<String, String> on = placement(api);
            return on.values().stream().filter("w2"::equals).count() == REPLICAS / 2
                && settled(api);
          });
      assertOneProcessEach(api, "once rebalanced");

      String deadline = java.time.Instant.now().plus(Duration.ofMinutes(10)).toString();
      RotaClient.Reply drain =
          api.api("POST", "/v1/workers/w1/drain", "{\"deadline\":\"" + deadline + "\"}");
      assertEquals(200, drain.status(), drain.body());
      eventually(
          "w1 drained: every replica on w2, no move under way",
          Duration.ofSeconds(90),
          () ->
              api.api("GET", "/v1/workers/w1", null).body().contains("\"state\":\"drained\"")
                  && placement(api).values().stream().allMatch("w2"::equals)
                  && settled(api));
      // A drain is reported done only once the old copies are gone: nothing of the set runs on w1
      // now.
      assertOneProcessEach(api, "once the drain is done");
      sampler.stop();

      assertEquals(
          Map.of(), sampler.doneWhileTwo, "no replica read as moved while its old copy still ran");
      assertTrue(
          sampler.mostDoubledAtOnce.get() <= 1,
          "no more replicas with two copies at once than maxUnavailable: "
              + sampler.mostDoubledAtOnce.get());
      assertTrue(sampler.looks.get() > 0, "the sampler looked");
      int moved = 0;
      StringBuilder lives = new StringBuilder();
      for (String vm : placement(api).keySet()) {
        List<Map<String, Object>> events = api.items("/v1/vms/" + vm + "/events?limit=1000");
        events.forEach(
            e ->
                lives
                    .append("  ")
                    .append(vm)
                    .append(' ')
                    .append(e.get("time"))
                    .append(' ')
                    .append(e.get("type"))
                    .append(": ")
                    .append(e.get("message"))
                    .append('\n'));
        long moves = events.stream().filter(e -> "moving".equals(e.get("type"))).count();
        long ends =
            events.stream()
                .filter(
                    e ->
                        "moved".equals(e.get("type"))
                            && String.valueOf(e.get("message"))
                                .startsWith("its old copy on worker w1 is gone"))
                .count();
        assertEquals(
            moves, ends, vm + ": each move it began ended once its old copy was gone: " + events);
        moved += (int) moves;
      }
      assertEquals(REPLICAS, moved, "two rebalancing moves and two off the drained worker");

      String figures =
          String.format(
              "moves: %d replicas (maxUnavailable 1), 2 rebalanced onto a new worker, 2 off a drained one;%n"
                  + "  sampled %d times every 200 ms; two copies seen %d times, the longest overlap seen %d ms;%n"
                  + "  never more than %d replica with two copies at once; none read as moved while two ran%n",
              REPLICAS,
              sampler.looks.get(),
              sampler.everDoubled.get(),
              sampler.longestOverlapMillis(),
              sampler.mostDoubledAtOnce.get());
      System.out.print(figures + lives);
      Files.writeString(
          Path.of("target", "moves.txt"), figures + "each replica's events:\n" + lives);
    }
  }

  /** Each replica has exactly one live process. */
  private static void assertOneProcessEach(RotaClient api, String when) {
    Map<String, List<Long>> processes = processesByReplica();
    assertEquals(
        placement(api).keySet(),
        new java.util.TreeSet<>(processes.keySet()),
        "every replica has a process " + when);
    processes.forEach(
        (vm, pids) -> assertEquals(1, pids.size(), vm + " runs once " + when + ": " + pids));
  }

  /** Each replica's worker, by name. */
  private static Map<String, String> placement(RotaClient api) {
    Map<String, String> on = new TreeMap<>();
    api.items("/v1/vms?set=mv")
        .forEach(vm -> on.put((String) vm.get("name"), String.valueOf(vm.get("worker"))));
    return on;
  }

  /** Every replica running, none moving. */
  private static boolean settled(RotaClient api) {
    List<Map<String, Object>> vms = api.items("/v1/vms?set=mv");
    return vms.size() == REPLICAS
        && vms.stream()
            .allMatch(vm -> "running".equals(vm.get("status")) && vm.get("movingFrom") == null);
  }

  /**
   * The live processes of the set's replicas, by replica: the task folder each runs in is named for
   * its task.
   */
  static Map<String, List<Long>> processesByReplica() {
    Map<String, List<Long>> by = new HashMap<>();
    for (Long pid : Vms.sleeping().getOrDefault(SLEEP, List.of())) {
      try {
        String task =
            Files.readSymbolicLink(Path.of("/proc", pid.toString(), "cwd"))
                .getFileName()
                .toString();
        by.computeIfAbsent(task.substring(0, task.lastIndexOf('.')), k -> new ArrayList<>())
            .add(pid);
      } catch (java.io.IOException | RuntimeException gone) {
        // ended between the listing and the look at its folder
      }
    }
    return by;
  }

  /** Looks at the API, the processes and the API again, every 200 ms, until stopped. */
  private static final class Sampler {
    final Map<String, String> doneWhileTwo = new ConcurrentHashMap<>();
    final AtomicInteger mostDoubledAtOnce = new AtomicInteger();
    final AtomicInteger everDoubled = new AtomicInteger();
    final AtomicInteger looks = new AtomicInteger();
    private final Map<String, Long> doubledSince = new ConcurrentHashMap<>();
    private final AtomicInteger longest = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final RotaClient api;
    private final Thread thread;

    Sampler(RotaClient api) {
      this.api = api;
      this.thread = new Thread(this::run, "move-sampler");
    }

    void start() {
      thread.start();
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join();
    }

    int longestOverlapMillis() {
      return longest.get();
    }

    private Map<String, Map<String, Object>> replicas() {
      Map<String, Map<String, Object>> by = new HashMap<>();
      api.items("/v1/vms?set=mv").forEach(vm -> by.put((String) vm.get("name"), vm));
      return by;
    }

    private void run() {
      while (running.get()) {
        Map<String, Map<String, Object>> before = replicas();
        Map<String, List<Long>> processes = processesByReplica();
        Map<String, Map<String, Object>> after = replicas();
        looks.incrementAndGet();
        long now = System.nanoTime();
        int doubled = 0;
        for (Map.Entry<String, List<Long>> e : processes.entrySet()) {
          String vm = e.getKey();
          if (e.getValue().size() < 2) {
            Long since = doubledSince.remove(vm);
            if (since != null) {
              longest.accumulateAndGet((int) ((now - since) / 1_000_000), Math::max);
            }
            continue;
          }
          doubled++;
          everDoubled.incrementAndGet();
          doubledSince.putIfAbsent(vm, now);
          Map<String, Object> a = before.get(vm);
          Map<String, Object> b = after.get(vm);
          if (a != null
              && b != null
              && a.get("movingFrom") == null
              && b.get("movingFrom") == null
              && a.get("restartCount").equals(b.get("restartCount"))) {
            doneWhileTwo.putIfAbsent(
                vm, "processes " + e.getValue() + "; before " + a + "; after " + b);
          }
        }
        mostDoubledAtOnce.accumulateAndGet(doubled, Math::max);
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
