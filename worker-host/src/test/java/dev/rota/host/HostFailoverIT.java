package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.temporal.api.history.v1.HistoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two production hosts on Temporal's own server (built from its release, several history shards, on
 * PostgreSQL, as docs/install.md deploys it), one database: exactly one scheduler acts; the host
 * holding the scheduler's workflow is killed with SIGKILL during a burst of submissions, and
 * nothing a user was told was accepted is lost, nothing runs twice, the other host's terms resume,
 * and the agents that talked to the killed host move to the other (no worker turns lost); then both
 * hosts are restarted in turn, and again nothing is lost; the killed host, coming back, ends a VM's
 * run begun before the release line and begins it again on this line's queue. The figures (how soon
 * terms resumed) are printed and kept in {@code target/failover.txt}; nothing here asserts speed.
 */
class HostFailoverIT {
  private static final int BURST = 200;
  private static final int CLIENTS = 8;

  @Test
  void aKilledSchedulerHostLosesNothingAndSoDoesARollingRestart() throws Exception {
    try (ProductionStack stack =
        ProductionStack.onTemporalServer(
            ProductionStack.folder("two-hosts"),
            2,
            3,
            // Agents heartbeat to one host each and know both: the killed host's agents move to the
            // other before they could be lost.
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_WORKERS_LOST_AFTER", "8s"))) {
      eventually(
          "one scheduler workflow, however many hosts started it",
          () ->
              stack
                      .temporalClient
                      .listExecutions(
                          "WorkflowId = '"
                              + ClusterWorkflow.WORKFLOW_ID
                              + "' AND ExecutionStatus = 'Running'")
                      .count()
                  == 1);
      int holder = schedulerHost(stack);
      int survivor = 1 - holder;
      RotaClient api = stack.admin(survivor);

      Vms.Burst burst = Vms.burst(BURST, CLIENTS, "burst", 400_000, n -> stack.admin(n % 2));
      Set<String> acked = burst.acked;
      burst.awaitFirstTenth();
      Instant killedAt = Instant.now();
      stack.host(holder).kill();
      burst.finish();

      eventually("the surviving host runs terms", () -> lastTermAt(api).isAfter(killedAt));
      Duration resumed = Duration.between(killedAt, lastTermAt(api));
      eventually("every acknowledged VM running", () -> Vms.running(api).containsAll(acked));
      Duration allRunning = Duration.between(killedAt, Instant.now());
      eventually(
          "every worker heard from through the surviving host",
          () ->
              api.items("/v1/workers").stream()
                  .allMatch(
                      w ->
                          w.get("lastSeen") != null
                              && Instant.parse((String) w.get("lastSeen"))
                                  .isAfter(killedAt.plusSeconds(8))));
      api.items("/v1/workers")
          .forEach(
              w ->
                  assertEquals(
                      "ready",
                      w.get("health"),
                      w.get("name") + " was never lost: its agent moved to the surviving host"));
      String timedOut = timeouts(stack);
      Map<String, Long> pids = Vms.onlyOneProcessEachAndPlacedOnce(api, acked);

      // A VM's run begun by a build from before the release line, on a queue no host polls: the
      // killed host, as it comes back, ends it, saying why, and begins the VM's run again on this
      // line's queue; its process runs on (checked with the others' below).
      String early = acked.iterator().next();
      String earlyId = dev.rota.workflows.vm.VmWorkflow.workflowId(early);
      String earlyRun =
          stack
              .temporalClient
              .newUntypedWorkflowStub(
                  "VmWorkflow",
                  io.temporal.client.WorkflowOptions.newBuilder()
                      .setWorkflowId(earlyId)
                      .setTaskQueue(TaskQueues.BEFORE_THE_LINE.get(0))
                      .setWorkflowIdConflictPolicy(
                          io.temporal.api.enums.v1.WorkflowIdConflictPolicy
                              .WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING)
                      .build())
              .start(early, null, null)
              .getRunId();

      // A rolling restart: the killed host comes back, then each host is stopped and started in
      // turn while submissions go to the other.
      stack.restartHost(holder);
      eventually(
          early + "'s run begun again on this line's queue",
          () ->
              !earlyRun.equals(stack.runId(earlyId))
                  && TaskQueues.CONTROL.equals(queueOf(stack, earlyId)));
      HistoryEvent ended = stack.temporalClient.fetchHistory(earlyId, earlyRun).getLastEvent();
      assertTrue(
          ended.hasWorkflowExecutionTerminatedEventAttributes()
              && ended
                  .getWorkflowExecutionTerminatedEventAttributes()
                  .getReason()
                  .contains("begun before release line"),
          ended.toString());
      int more = 0;
      for (int host : List.of(survivor, holder)) {
        assertEquals(0, stack.host(host).stop(), "a host stops cleanly on SIGTERM");
        for (int k = 0; k < 5; k++, more++) {
          assertTrue(Vms.submit(stack.admin(1 - host), "rolling-" + more, 500_000 + more));
          acked.add("rolling-" + more);
        }
        stack.restartHost(host);
      }
      eventually(
          "every acknowledged VM running after the rolling restart",
          () -> Vms.running(api).containsAll(acked));
      Map<String, Long> after = Vms.onlyOneProcessEachAndPlacedOnce(api, acked);
      pids.forEach(
          (vm, pid) ->
              assertEquals(pid, after.get(vm), vm + " kept its process through the restarts"));
      eventually(
          "every VM the API lists is running, acknowledged or not",
          () ->
              api.allItems("/v1/vms?limit=1000").stream()
                  .allMatch(vm -> "running".equals(vm.get("status"))));

      String figures =
          String.format(
              "failover: host %d (of 2) killed with SIGKILL after %d of %d submissions were acknowledged;%n"
                  + "  the survivor's first term started %.1f s after the kill; all %d acknowledged VMs running %.1f s after it%n"
                  + "  what the scheduler's history shows timing out: %s%n",
              holder + 1,
              BURST / 10,
              BURST,
              resumed.toMillis() / 1000.0,
              acked.size() - more,
              allRunning.toMillis() / 1000.0,
              timedOut);
      System.out.print(figures);
      Files.writeString(Path.of("target", "failover.txt"), figures);
    }
  }

  /**
   * The host whose Temporal worker ran the scheduler's last workflow task: it holds it in its
   * cache.
   */
  private static int schedulerHost(ProductionStack stack) {
    List<HistoryEvent> events =
        stack.temporalClient.fetchHistory(ClusterWorkflow.WORKFLOW_ID).getEvents();
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
        .map(
            e ->
                e.hasWorkflowTaskTimedOutEventAttributes()
                    ? "workflow task " + e.getWorkflowTaskTimedOutEventAttributes().getTimeoutType()
                    : e.hasActivityTaskTimedOutEventAttributes()
                        ? "activity "
                            + e.getActivityTaskTimedOutEventAttributes()
                                .getFailure()
                                .getTimeoutFailureInfo()
                                .getTimeoutType()
                        : null)
        .filter(java.util.Objects::nonNull)
        .map(s -> s.replace("TIMEOUT_TYPE_", "").toLowerCase())
        .collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting()))
        .toString();
  }

  private static Instant lastTermAt(RotaClient api) {
    Object at = api.api("GET", "/v1/cluster", null).map().get("lastTermAt");
    return at == null ? Instant.EPOCH : Instant.parse((String) at);
  }

  /** The task queue the workflow's latest run was started on. */
  private static String queueOf(ProductionStack stack, String workflowId) {
    return stack
        .temporalClient
        .fetchHistory(workflowId)
        .getEvents()
        .get(0)
        .getWorkflowExecutionStartedEventAttributes()
        .getTaskQueue()
        .getName();
  }
}
