package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.cluster.ClusterWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code rota.jar dev} on the real Temporal server (the CLI's dev server, {@code
 * ROTA_DEV_TEMPORAL=cli}): the banner gives the Web UI, which answers; killed with SIGKILL and
 * started again on the same data folder, it finds its server's state (the same workflow runs) and
 * its VM's process; idle, its quiet terms rest (the scheduler's history stays still); SIGTERM stops
 * the server with it.
 */
class DevCliJarIT {
  @Test
  void devModeRunsTheRealServerKeepsWorkflowsAcrossAKillAndStopsItOnSigterm() throws Exception {
    Path cli = RealServices.temporalCli();
    Path dir = ProductionStack.folder("dev-cli");
    Path data = dir.resolve("data");
    int http = FreePorts.next();
    int temporal = FreePorts.next();
    int ui = FreePorts.next();
    Map<String, String> env =
        Map.of(
            "ROTA_DEV_TEMPORAL", "cli",
            "ROTA_TEMPORAL_CLI", cli.toString(),
            "MICRONAUT_SERVER_PORT", String.valueOf(http),
            "ROTA_TEMPORAL_PORT", String.valueOf(temporal),
            "ROTA_TEMPORAL_UI_PORT", String.valueOf(ui),
            "ROTA_DATA_DIR", data.toString(),
            "ROTA_DEV_AGENTS", "1",
            // Terms every second, idle or not: quiet terms come quickly.
            "ROTA_SCHEDULER_INTERVAL", "1s",
            "ROTA_SCHEDULER_IDLE_INTERVAL", "1s");
    JarProcess dev = JarProcess.dev("dev", env, dir);
    RotaClient api = new RotaClient("http://127.0.0.1:" + http, null);
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + temporal).build());
    try {
      String banner = dev.start().awaitOutput("  Data ").output();
      String webUi = "http://127.0.0.1:" + ui + "/namespaces/default/workflows";
      assertTrue(banner.contains("Web UI    " + webUi), banner);
      assertTrue(banner.contains("Temporal CLI 1.9.1"), banner);
      assertTrue(banner.contains("state in " + data.resolve("temporal.sqlite")), banner);
      HttpResponse<String> page =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(webUi)).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, page.statusCode(), "the Web UI answers");

      assertEquals(
          201,
          api.api("POST", "/v1/vms", "{\"name\":\"keeper\",\"command\":[\"sleep\",\"3801\"]}")
              .status());
      eventually("keeper running", () -> "running".equals(api.vm("keeper").get("status")));
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      // A VM runs without waiting for its workflow, which is started after
      // rota.vms.workflow-start-delay.
      eventually(
          "keeper's workflow started",
          () -> {
            try {
              client.newUntypedWorkflowStub("vm-keeper").describe();
              return true;
            } catch (io.temporal.client.WorkflowNotFoundException e) {
              return false;
            }
          });
      String run = client.newUntypedWorkflowStub("vm-keeper").describe().getExecution().getRunId();
      List<ProcessHandle> before = sleeping("sleep 3801");
      assertEquals(1, before.size());

      dev.kill();
      banner = dev.start().awaitOutput("  Data ").output();
      assertTrue(
          banner.contains("Web UI    " + webUi),
          "the server a killed host left is replaced, on its ports: " + banner);
      assertEquals(
          run,
          client.newUntypedWorkflowStub("vm-keeper").describe().getExecution().getRunId(),
          "the server kept the VM's workflow run");
      try {
        eventually(
            "keeper running after the restart",
            () -> "running".equals(api.vm("keeper").get("status")));
      } catch (AssertionError e) {
        throw new AssertionError(
            e.getMessage()
                + ": "
                + api.vm("keeper")
                + "; events "
                + api.items("/v1/vms/keeper/events"),
            e);
      }
      assertEquals(before, sleeping("sleep 3801"), "its process was adopted, not started again");

      // Nothing changes now: on a Temporal server, quiet terms rest in their activity and leave
      // the scheduler's history alone (about ten events a term otherwise).
      eventually(
          "three terms that added nothing to the scheduler's history",
          java.time.Duration.ofMinutes(1),
          () -> {
            long events = historyLength(client, ClusterWorkflow.WORKFLOW_ID);
            long term = term(api);
            eventually("three more terms", () -> term(api) >= term + 3);
            return historyLength(client, ClusterWorkflow.WORKFLOW_ID) == events;
          });

      assertEquals(0, dev.stop(), "SIGTERM stops dev mode cleanly");
      eventually("its Temporal server stopped with it", () -> servers(data).isEmpty());
      String left =
          "rota: left running for the next start on "
              + data
              + " to adopt: 1 VM (keeper); to stop it: ./rota dev --stop-vms";
      assertEquals(
          1,
          dev.output().lines().filter(left::equals).count(),
          "dev mode says once what it leaves running: " + dev.output());
      assertEquals(before, sleeping("sleep 3801"), "and leaves it");

      try (JarProcess stopper = JarProcess.dev("dev-stop", env, dir, List.of("--stop-vms"))) {
        assertEquals(0, stopper.start().awaitExit(), stopper.output());
        assertTrue(stopper.output().contains("rota: every VM is stopped"), stopper.output());
      }
      assertEquals(List.of(), sleeping("sleep 3801"), "--stop-vms stopped it");
    } finally {
      dev.close();
      servers(data).forEach(ProcessHandle::destroyForcibly);
      sleeping("sleep 3801").forEach(ProcessHandle::destroyForcibly);
      stubs.shutdownNow();
    }
  }

  private static long term(RotaClient api) {
    return ((Number) api.api("GET", "/v1/cluster", null).map().get("term")).longValue();
  }

  private static long historyLength(WorkflowClient client, String workflowId) {
    return client
        .newUntypedWorkflowStub(workflowId)
        .describe()
        .getRawDescription()
        .getWorkflowExecutionInfo()
        .getHistoryLength();
  }

  /**
   * Every process whose command line ends with {@code args}: a killed host's tasks are no longer
   * its descendants.
   */
  private static List<ProcessHandle> sleeping(String args) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.endsWith(args)).orElse(false))
        .toList();
  }

  private static List<ProcessHandle> servers(Path data) {
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.isAlive()
                    && p.info()
                        .commandLine()
                        .map(c -> c.contains("start-dev") && c.contains(data.toString()))
                        .orElse(false))
        .toList();
  }
}
