package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.workflows.vm.VmWorkflow;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the API acknowledged survives the host being killed: {@code rota.jar dev} (three agents) is
 * killed with SIGKILL during a burst of 150 submissions from 8 clients and started again on its
 * data folder; every VM answered 201 exists, runs, runs exactly once, and has its workflow. On both
 * of dev mode's servers: the embedded one forgets its workflows (the host gives them back from the
 * database), the CLI's keeps them.
 */
class DurableAcksIT {
  private static final int BURST = 150;
  private static final int FIRST_SLEEP = 600_000;

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "cli"})
  void everyAcknowledgedVmSurvivesASigkillOfTheHostAndRunsOnce(String server) throws Exception {
    Map<String, String> env = new HashMap<>();
    if (server.equals("cli")) {
      env.put("ROTA_TEMPORAL_CLI", RealServices.temporalCli().toString());
    }
    Path dir = ProductionStack.folder("durable-acks-" + server);
    int[] ports = new int[2]; // Temporal's, the API's
    JarProcess dev =
        JarProcess.onFreePorts(
            () -> {
              ports[0] = FreePorts.next();
              ports[1] = FreePorts.next();
              env.putAll(
                  Map.of(
                      "ROTA_DEV_TEMPORAL", server,
                      "MICRONAUT_SERVER_PORT", String.valueOf(ports[1]),
                      "ROTA_TEMPORAL_PORT", String.valueOf(ports[0]),
                      "ROTA_TEMPORAL_UI_PORT", String.valueOf(FreePorts.next()),
                      "ROTA_DATA_DIR", dir.resolve("data").toString(),
                      "ROTA_DEV_AGENTS", "3",
                      "ROTA_DEV_AGENT_RESOURCES", "cpu=100,memory=100000"));
              return JarProcess.dev("dev", env, dir).start().awaitOutput("  Data ");
            });
    int temporalPort = ports[0];
    RotaClient api = new RotaClient("http://127.0.0.1:" + ports[1], null);
    try {
      Vms.Burst burst = Vms.burst(BURST, 8, "acked", FIRST_SLEEP, n -> api);
      burst.awaitFirstThird();
      dev.kill();
      burst.finish();
      Set<String> acked = burst.acked;

      dev.start().awaitOutput("  Data ");
      for (String vm : acked) {
        assertEquals(
            200,
            api.api("GET", "/v1/vms/" + vm, null).status(),
            vm + " was acknowledged, and is kept");
      }
      eventually("every acknowledged VM running", () -> Vms.running(api).containsAll(acked));
      Vms.onlyOneProcessEachAndPlacedOnce(api, acked);
      // A submission is answered before its workflow starts: the starts the killed host still owed
      // are made by the host that comes back (its restore, then its sweep), each VM's workflow
      // open.
      io.temporal.serviceclient.WorkflowServiceStubs stubs =
          io.temporal.serviceclient.WorkflowServiceStubs.newServiceStubs(
              io.temporal.serviceclient.WorkflowServiceStubsOptions.newBuilder()
                  .setTarget("127.0.0.1:" + temporalPort)
                  .build());
      try {
        io.temporal.client.WorkflowClient client =
            io.temporal.client.WorkflowClient.newInstance(stubs);
        eventually(
            "every acknowledged VM's workflow open",
            () ->
                acked.stream()
                    .allMatch(
                        vm -> {
                          try {
                            return client
                                    .newUntypedWorkflowStub(VmWorkflow.workflowId(vm))
                                    .describe()
                                    .getStatus()
                                == io.temporal.api.enums.v1.WorkflowExecutionStatus
                                    .WORKFLOW_EXECUTION_STATUS_RUNNING;
                          } catch (io.temporal.client.WorkflowNotFoundException e) {
                            return false;
                          }
                        }));
      } finally {
        stubs.shutdownNow();
      }
      System.out.printf(
          "%s: %d of %d submissions acknowledged before the SIGKILL; all kept, each running once%n",
          server, acked.size(), BURST);
    } finally {
      dev.close();
      Vms.endProcesses(FIRST_SLEEP, FIRST_SLEEP + BURST);
    }
  }
}
