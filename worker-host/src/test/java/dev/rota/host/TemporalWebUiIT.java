package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.workflows.cluster.ClusterWorkflow;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the Temporal Web UI shows of Rota, read in headless Chromium as a person reads it: the
 * scheduler's and a VM's workflow pages (static summary and details, current details, search
 * attributes, why a VM waits) and a search-attribute query. Screenshots are kept in {@code
 * worker-host/target/ui-screenshots/} (README's Temporal UI guide uses them).
 */
class TemporalWebUiIT {
  private static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  @Test
  void theSchedulerAndAVmAreLegibleInTheWebUi() throws Exception {
    Path chromium = RealServices.chromium();
    try (ProductionStack stack =
            ProductionStack.start(ProductionStack.folder("web-ui"), 1, 1, Map.of());
        WebUi ui =
            WebUi.open(chromium, Files.createTempDirectory("rota-it-chromium"), SCREENSHOTS)) {
      RotaClient api = stack.admin(0);
      RotaClient.Reply created =
          api.api("POST", "/v1/vms", "{\"name\":\"web-1\",\"command\":[\"sleep\",\"3741\"]}");
      assertEquals(201, created.status(), created.body());
      eventually("web-1 running", () -> "running".equals(api.vm("web-1").get("status")));
      RotaClient.Reply waits =
          api.api(
              "POST",
              "/v1/vms",
              "{\"name\":\"web-waits\",\"command\":[\"sleep\",\"3742\"],\"labels\":{\"disk\":\"nvme\"}}");
      assertEquals(201, waits.status(), waits.body());

      String base = stack.temporal.webUi() + "/namespaces/default/workflows/";
      String cluster =
          base + ClusterWorkflow.WORKFLOW_ID + "/" + runId(stack, ClusterWorkflow.WORKFLOW_ID);
      ui.show(
          cluster + "/user-metadata",
          "the scheduler's summary, details and current details",
          text ->
              text.contains("Rota scheduler: observe, health, place, reconcile")
                  && text.contains("One term at least every")
                  && text.matches("(?s).*term \\d+.*agents answered; placed.*")
                  && text.contains("pending web-waits: ")
                  && text.contains("disk=nvme"),
          "cluster-user-metadata");
      ui.show(
          cluster + "/history",
          "the scheduler's terms as activities and timers, each saying what it does",
          text ->
              text.contains("Activity Task Scheduled")
                  && text.contains("Timer Started")
                  && text.matches("(?s).*term \\d+: .*waiting.*")
                  && text.contains("— next in"),
          "cluster-history");

      eventually(
          "web-1's workflow started",
          () -> {
            try {
              runId(stack, "vm-web-1");
              return true;
            } catch (io.temporal.client.WorkflowNotFoundException e) {
              return false;
            }
          });
      String vm = base + "vm-web-1/" + runId(stack, "vm-web-1");
      ui.show(
          vm + "/user-metadata",
          "the VM's summary, details and current details",
          text ->
              text.contains("process: sleep 3741")
                  && text.contains("Lifecycle of VM web-1")
                  && text.contains("running on w1, restart 0"),
          "vm-user-metadata");
      ui.show(
          vm + "/search-attributes",
          "the VM's search attributes",
          text ->
              text.contains("\"RotaVmStatus\": \"running\"")
                  && text.contains("\"RotaWorker\": \"w1\""),
          "vm-search-attributes");
      // Started 2 s after its submission (rota.vms.workflow-start-delay), the workflow is handed
      // the VM placed and running, and shows it with one upsert: nothing was left to signal.
      ui.show(
          vm + "/history",
          "the VM's lifecycle events",
          text ->
              text.contains("Workflow Execution Started")
                  && text.contains("Upsert Workflow Search Attributes"),
          "vm-history");

      String query =
          URLEncoder.encode("RotaVmStatus = 'running'", StandardCharsets.UTF_8).replace("+", "%20");
      ui.show(
          stack.temporal.webUi() + "/namespaces/default/workflows?query=" + query,
          "the running VMs listed by their search attribute",
          text -> text.contains("vm-web-1") && !text.contains("rota-cluster"),
          "workflows-running-vms");
    }
  }

  private static String runId(ProductionStack stack, String workflowId) {
    return stack
        .temporalClient
        .newUntypedWorkflowStub(workflowId)
        .describe()
        .getExecution()
        .getRunId();
  }
}
