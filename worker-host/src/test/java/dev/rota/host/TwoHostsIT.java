package dev.rota.host;

import static dev.rota.host.Stack.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.cluster.ClusterWorkflow;
import io.temporal.api.history.v1.HistoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two production hosts, one Temporal server, one database: exactly one scheduler acts; the host
 * holding the scheduler's workflow is killed with SIGKILL during a burst of submissions, and nothing a
 * user was told was accepted is lost, nothing runs twice, the other host's terms resume; then both
 * hosts are restarted in turn, and again nothing is lost. The figures (how soon terms resumed) are
 * printed and kept in {@code target/failover.txt}; nothing here asserts speed.
 */
class TwoHostsIT {
  private static final int BURST = 200;
  private static final int CLIENTS = 8;

  @Test
  void aKilledSchedulerHostLosesNothingAndSoDoesARollingRestart() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("two-hosts"), 2, 3,
            // Agents heartbeat to one host each: the killed host's agents are lost only after a minute.
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_WORKERS_LOST_AFTER", "60s"))) {
      eventually("one scheduler workflow, however many hosts started it",
          () -> stack.temporalClient.listExecutions(
              "WorkflowId = '" + ClusterWorkflow.WORKFLOW_ID + "' AND ExecutionStatus = 'Running'").count() == 1);
      int holder = schedulerHost(stack);
      int survivor = 1 - holder;
      RotaClient api = stack.admin(survivor);

      Set<String> acked = ConcurrentHashMap.newKeySet();
      CountDownLatch firstAcks = new CountDownLatch(BURST / 10);
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
      for (int i = 0; i < BURST; i++) {
        int n = i;
        clients.submit(() -> {
          if (submit(stack.admin(n % 2), "burst-" + n, 400_000 + n)) {
            acked.add("burst-" + n);
            firstAcks.countDown();
          }
        });
      }
      assertTrue(firstAcks.await(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS), "the burst is under way");
      Instant killedAt = Instant.now();
      stack.host(holder).kill();
      clients.shutdown();
      assertTrue(clients.awaitTermination(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS));

      eventually("the surviving host runs terms", () -> lastTermAt(api).isAfter(killedAt));
      Duration resumed = Duration.between(killedAt, lastTermAt(api));
      eventually("every acknowledged VM running", () -> running(api).containsAll(acked));
      Duration allRunning = Duration.between(killedAt, Instant.now());
      String timedOut = timeouts(stack);
      Map<String, Long> pids = onlyOneProcessEachAndPlacedOnce(api, acked);

      // A rolling restart: the killed host comes back, then each host is stopped and started in turn
      // while submissions go to the other.
      stack.restartHost(holder);
      int more = 0;
      for (int host : List.of(survivor, holder)) {
        assertEquals(0, stack.host(host).stop(), "a host stops cleanly on SIGTERM");
        for (int k = 0; k < 5; k++, more++) {
          assertTrue(submit(stack.admin(1 - host), "rolling-" + more, 500_000 + more));
          acked.add("rolling-" + more);
        }
        stack.restartHost(host);
      }
      eventually("every acknowledged VM running after the rolling restart", () -> running(api).containsAll(acked));
      Map<String, Long> after = onlyOneProcessEachAndPlacedOnce(api, acked);
      pids.forEach((vm, pid) -> assertEquals(pid, after.get(vm), vm + " kept its process through the restarts"));
      eventually("every VM the API lists is running, acknowledged or not",
          () -> api.items("/v1/vms?limit=1000").stream().allMatch(vm -> "running".equals(vm.get("status"))));

      String figures =
          String.format(
              "failover: host %d (of 2) killed with SIGKILL after %d of %d submissions were acknowledged;%n"
                  + "  the survivor's first term started %.1f s after the kill; all %d acknowledged VMs running %.1f s after it%n"
                  + "  what the scheduler's history shows timing out: %s%n",
              holder + 1, BURST / 10, BURST, resumed.toMillis() / 1000.0, acked.size() - more, allRunning.toMillis() / 1000.0,
              timedOut);
      System.out.print(figures);
      Files.writeString(Path.of("target", "failover.txt"), figures);
    }
  }

  /** The host whose Temporal worker ran the scheduler's last workflow task: it holds it in its cache. */
  private static int schedulerHost(ProductionStack stack) {
    List<HistoryEvent> events = stack.temporalClient.fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents();
    for (int i = events.size() - 1; i >= 0; i--) {
      if (events.get(i).hasWorkflowTaskCompletedEventAttributes()) {
        String identity = events.get(i).getWorkflowTaskCompletedEventAttributes().getIdentity();
        int host = stack.hostWithPid(Long.parseLong(identity.substring(0, identity.indexOf('@'))));
        assertTrue(host >= 0, "a host of this stack ran the scheduler: " + identity);
        return host;
      }
    }
    throw new AssertionError("the scheduler has completed no workflow task");
  }

  /** The scheduler's timed-out tasks (what a dead host costs it), by kind and timeout. */
  private static String timeouts(ProductionStack stack) {
    return stack.temporalClient.fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents().stream()
        .map(e -> e.hasWorkflowTaskTimedOutEventAttributes()
            ? "workflow task " + e.getWorkflowTaskTimedOutEventAttributes().getTimeoutType()
            : e.hasActivityTaskTimedOutEventAttributes()
                ? "activity " + e.getActivityTaskTimedOutEventAttributes().getFailure().getTimeoutFailureInfo().getTimeoutType()
                : null)
        .filter(java.util.Objects::nonNull)
        .map(s -> s.replace("TIMEOUT_TYPE_", "").toLowerCase())
        .collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting()))
        .toString();
  }

  /** Whether the API acknowledged the VM (201); a host killed mid-request acknowledges nothing. */
  private static boolean submit(RotaClient api, String name, int sleep) {
    try {
      return api.api("POST", "/v1/vms", "{\"name\":\"" + name + "\",\"command\":[\"sleep\",\"" + sleep + "\"]}").status() == 201;
    } catch (AssertionError connectionRefusedOrReset) {
      return false;
    }
  }

  private static Instant lastTermAt(RotaClient api) {
    Object at = api.api("GET", "/v1/cluster", null).map().get("lastTermAt");
    return at == null ? Instant.EPOCH : Instant.parse((String) at);
  }

  private static Set<String> running(RotaClient api) {
    return api.items("/v1/vms?status=running&limit=1000").stream().map(vm -> (String) vm.get("name")).collect(Collectors.toSet());
  }

  /**
   * Each VM has exactly one process (its {@code sleep N} is its own), its first placement is its
   * only one, and it never restarted; returns each VM's pid.
   */
  private static Map<String, Long> onlyOneProcessEachAndPlacedOnce(RotaClient api, Set<String> vms) {
    Map<String, List<Long>> sleeping = new TreeMap<>();
    // The command line names the executable by its path: /usr/bin/sleep 400059.
    java.util.regex.Pattern sleep = java.util.regex.Pattern.compile("(?:^|/)sleep (\\d+)$");
    ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).forEach(p ->
        p.info().commandLine().map(sleep::matcher).filter(java.util.regex.Matcher::find).ifPresent(m ->
            sleeping.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(p.pid())));
    Map<String, Long> pids = new TreeMap<>();
    for (String vm : vms) {
      Map<String, Object> row = api.vm(vm);
      String arg = String.valueOf(((List<?>) row.get("command")).get(1));
      List<Long> processes = sleeping.getOrDefault(arg, List.of());
      assertEquals(1, processes.size(), vm + " has exactly one process: " + processes + "; " + row + "; " + api.eventTypes(vm)
          + "; " + sleeping.size() + " VM processes in all");
      assertEquals(0, ((Number) row.get("restartCount")).intValue(), vm + " never restarted");
      assertEquals(1, api.eventTypes(vm).stream().filter("scheduled"::equals).count(), vm + " placed once: " + api.eventTypes(vm));
      pids.put(vm, processes.get(0));
    }
    return pids;
  }
}
