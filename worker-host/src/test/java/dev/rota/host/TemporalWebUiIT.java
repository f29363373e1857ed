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
 * scheduler's and a VM's workflow pages (static summary and details, current details with the VM's
 * readiness, search attributes, why a VM waits) and a search-attribute query. Screenshots are kept
 * in {@code worker-host/target/ui-screenshots/} (README's Temporal UI guide uses them).
 */
class TemporalWebUiIT {
  private static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  @Test
  void theSchedulerAndAVmAreLegibleInTheWebUi() throws Exception {
    Path chromium = RealServices.chromium();
    try (ProductionStack stack =
            ProductionStack.start(
                ProductionStack.folder("web-ui"), 1, 1, Map.of("ROTA_VMS_RESTART_DELAY", "1s"));
        WebUi ui =
            WebUi.open(chromium, Files.createTempDirectory("rota-it-chromium"), SCREENSHOTS)) {
      RotaClient api = stack.admin(0);
      RotaClient.Reply created =
          api.api(
              "POST",
              "/v1/vms",
              "{\"name\":\"web-1\",\"command\":[\"sleep\",\"3741\"],"
                  + "\"readiness\":{\"exec\":{\"command\":[\"true\"]},\"period\":\"1s\"}}");
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
          base + ClusterWorkflow.WORKFLOW_ID + "/" + stack.runId(ClusterWorkflow.WORKFLOW_ID);
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
                  && text.matches("(?s).*term \\d+: placed \\d+ · .*— next in.*"),
          "cluster-history");

      eventually(
          "web-1's workflow started",
          () -> {
            try {
              stack.runId("vm-web-1");
              return true;
            } catch (io.temporal.client.WorkflowNotFoundException e) {
              return false;
            }
          });
      String vm = base + "vm-web-1/" + stack.runId("vm-web-1");
      ui.show(
          vm + "/user-metadata",
          "the VM's summary, details and current details",
          text ->
              text.contains("process: sleep 3741")
                  && text.contains("Lifecycle of VM web-1")
                  && text.contains("running on w1, restart 0; ready since "),
          "vm-user-metadata");
      ui.show(
          vm + "/search-attributes",
          "the VM's search attributes",
          text ->
              text.contains("\"RotaVmStatus\": \"running\"")
                  && text.contains("\"RotaWorker\": \"w1\""),
          "vm-search-attributes");
      // Started once its VM runs (rota.vms.workflow-start-delay, and again while it is placed), the
      // workflow is handed the VM running, its start's search attributes show it so, and its first
      // task shows nothing again: nothing was left to signal or upsert.
      ui.show(
          vm + "/history",
          "the VM's lifecycle events",
          text ->
              text.contains("Workflow Execution Started")
                  && text.contains("Workflow Task Completed")
                  && !text.contains("Activity Task Scheduled")
                  && !text.contains("Marker Recorded")
                  && !text.contains("Upsert Workflow Search Attributes"),
          "vm-history");

      String list = stack.temporal.webUi() + "/namespaces/default/workflows?query=";
      ui.show(
          list + query("RotaVmStatus = 'running'"),
          "the running VMs listed by their search attribute",
          lists("vm-web-1", "rota-cluster"),
          "workflows-running-vms");

      // A VM that fails, is restarted once, fails again and is given up on: its run stays open,
      // showing it failed, and its history reads as its life.
      RotaClient.Reply crashy =
          api.api(
              "POST",
              "/v1/vms",
              "{\"name\":\"crashy\",\"command\":[\"sh\",\"-c\",\"exit 3\"],"
                  + "\"restartPolicy\":\"OnFailure\",\"maxRestarts\":1}");
      assertEquals(201, crashy.status(), crashy.body());
      eventually(
          "crashy failed for good, its run open",
          () ->
              "failed".equals(api.vm("crashy").get("status"))
                  && !closed(stack, "vm-crashy")
                  && "failed".equals(shownStatus(stack, "vm-crashy"))
                  && String.valueOf(api.vm("crashy").get("statusMessage"))
                      .contains("not restarted"));
      ui.show(
          base + "vm-crashy/" + stack.runId("vm-crashy") + "/history",
          "the failed VM's history: each end with its exit code, the restart and when",
          text ->
              text.contains("failed on w1 as crashy.0")
                  && text.contains("code 3")
                  && text.contains("restart 1 scheduled for ")
                  && text.contains("pending as crashy.1: restarted after the task ended")
                  && text.contains("failed on w1 as crashy.1"),
          "vm-failed-history");

      // A stopped VM's run completes; the list tells the two apart.
      assertEquals(202, api.api("POST", "/v1/vms/web-1/stop", null).status());
      eventually("web-1's run ended with it", () -> closed(stack, "vm-web-1"));
      ui.show(
          list + query("RotaVmStatus = 'failed' AND ExecutionStatus = 'Running'"),
          "what is failing now: the VM that failed for good, not the one that stopped",
          lists("vm-crashy", "vm-web-1"),
          "workflows-failed-vms");
      ui.show(
          list + query("WorkflowType = 'VmWorkflow'"),
          "the VMs with their runs' statuses: failed (open), completed (stopped), running (waiting)",
          text ->
              text.contains("RUNNING\nvm-crashy ")
                  && text.contains("COMPLETED\nvm-web-1 ")
                  && text.contains("RUNNING\nvm-web-waits "),
          "workflows-vm-statuses");
      ui.show(
          list + query("RotaLastExit = 'exit 3' AND RotaRestarts = 1"),
          "found by how it last ended and its restarts",
          lists("vm-crashy", "vm-web-1"),
          "workflows-last-exit");

      // The failed VM's run takes the user's next action: a start, then a delete that it carries
      // out, ending with the VM shown deleted, so no longer failing now.
      String failedRun = stack.runId("vm-crashy");
      RotaClient.Reply again = api.api("POST", "/v1/vms/crashy/start", null);
      assertEquals(202, again.status(), again.body());
      assertEquals(failedRun, stack.runId("vm-crashy"), "the same run");
      assertEquals(202, api.api("DELETE", "/v1/vms/crashy", null).status());
      eventually("crashy gone", () -> api.api("GET", "/v1/vms/crashy", null).status() == 404);
      eventually(
          "its last run ended showing it deleted",
          () -> closed(stack, "vm-crashy") && "deleted".equals(shownStatus(stack, "vm-crashy")));

      // A workflow whose tasks keep failing (here of a type no host knows) is flagged, and the
      // Failures view lists it; a VM's failed run is not such a failure.
      String stuck = "stuck-" + System.nanoTime();
      stack
          .temporalClient
          .newUntypedWorkflowStub(
              "NoSuchWorkflow",
              io.temporal.client.WorkflowOptions.newBuilder()
                  .setWorkflowId(stuck)
                  .setTaskQueue(dev.rota.workflows.TaskQueues.CONTROL)
                  .build())
          .start();
      eventually(
          stuck + " flagged",
          () ->
              stack
                      .temporalClient
                      .listExecutions("TemporalReportedProblems IS NOT NULL")
                      .filter(w -> w.getExecution().getWorkflowId().equals(stuck))
                      .count()
                  == 1);
      ui.show(
          list + query("TemporalReportedProblems IS NOT NULL"),
          "the stuck workflow in the Failures view's query, counted by the Failures view",
          text -> lists(stuck, "vm-crashy").test(text) && text.contains("Failures\n1"),
          "workflows-task-failures");
      stack.temporalClient.newUntypedWorkflowStub(stuck).terminate("test done");

      // A set that stays as it is adds nothing to its history after its first pass.
      RotaClient.Reply pair =
          api.api(
              "POST",
              "/v1/vm-sets",
              "{\"name\":\"pair\",\"replicas\":2,\"template\":{\"command\":[\"sleep\",\"3743\"]}}");
      assertEquals(201, pair.status(), pair.body());
      eventually(
          "pair's replicas running",
          () ->
              "running".equals(api.vm("pair-0").get("status"))
                  && "running".equals(api.vm("pair-1").get("status")));
      ui.show(
          list + query("RotaVmSet = 'pair'"),
          "the set's replicas by their search attribute",
          text -> text.contains("vm-pair-0") && text.contains("vm-pair-1"),
          "workflows-set-replicas");
      String set = base + "vmset-pair/" + stack.runId("vmset-pair") + "/history";
      ui.show(
          set,
          "the set's history: one pass, then a wait for a change",
          text ->
              text.contains("make the replicas of pair match the set")
                  && text.contains("2 of 2 replicas; looking again on a change"),
          "vmset-history");
      assertEquals(
          1,
          stack.temporalClient.fetchHistory("vmset-pair").getEvents().stream()
              .filter(e -> e.hasActivityTaskScheduledEventAttributes())
              .count(),
          "one pass: nothing changed since");
      // By now the scheduler has had quiet terms (web-waits still waits): its pending term activity
      // shows the latest as its last failure.
      ui.show(
          cluster + "/pending-activities",
          "quiet terms as the pending term activity's attempts, the last one's line as its failure",
          text ->
              text.contains("QuietTerm") && text.matches("(?s).*term \\d+: 1 waiting — next in.*"),
          "cluster-quiet-terms");
    }
  }

  /** A list of workflows that shows one and not another. */
  private static java.util.function.Predicate<String> lists(String shown, String notShown) {
    return text -> text.contains(shown) && !text.contains(notShown);
  }

  private static String query(String query) {
    return URLEncoder.encode(query, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The VM's status as the list shows it: its run's RotaVmStatus. */
  private static String shownStatus(ProductionStack stack, String workflowId) {
    return stack
        .temporalClient
        .newUntypedWorkflowStub(workflowId)
        .describe()
        .getTypedSearchAttributes()
        .get(dev.rota.workflows.RotaSearchAttributes.VM_STATUS);
  }

  private static boolean closed(ProductionStack stack, String workflowId) {
    return stack.temporalClient.newUntypedWorkflowStub(workflowId).describe().getStatus()
        != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }
}
