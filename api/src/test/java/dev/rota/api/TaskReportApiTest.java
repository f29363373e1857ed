package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.vm.VmWorkflow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code PUT /v1/workers/{name}/tasks}: agents report task states as they change, between probes.
 */
@MicronautTest(transactional = false)
class TaskReportApiTest {
  @Inject Http http;
  @Inject WorkflowClient temporal;
  @Inject HandPlacement hand;

  private static String report(String id, String state, Integer exitCode) {
    return "{\"tasks\":[{\"id\":\""
        + id
        + "\",\"vm\":\""
        + id.substring(0, id.indexOf('.'))
        + "\",\"state\":\""
        + state
        + "\",\"exitCode\":"
        + exitCode
        + ",\"startedAt\":null,\"finishedAt\":null,\"message\":null}]}";
  }

  @Inject dev.rota.control.VmWorkflowStarter starter;

  private String status(String vm) {
    return (String) http.get("/v1/vms/" + vm).map().get("status");
  }

  private long observedSignals(String vm) {
    return temporal.fetchHistory(VmWorkflow.workflowId(vm)).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
        .count();
  }

  /**
   * A VM placed on {@code worker} by hand, as a term would, its workflow told, without waiting for
   * the scheduler.
   */
  private void placed(String vm, String worker) throws InterruptedException {
    assertEquals(
        201,
        http.post("/v1/vms", "{\"name\":\"" + vm + "\",\"command\":[\"sleep\",\"60\"]}").status());
    eventually(
        vm + "'s workflow started",
        () -> !starter.owed(vm)); // answered once stored, started right after
    hand.place(vm, worker);
    eventually(vm + " scheduled", () -> "scheduled".equals(status(vm)));
  }

  private boolean statusIs(String vm, String expected) {
    return expected.equals(status(vm));
  }

  @Test
  void theVmsOwnAgentReportingItsTaskRunningMakesItRunningAtOnce() throws InterruptedException {
    for (String w : List.of("rep-1", "rep-2")) {
      assertEquals(
          201,
          http.post("/v1/workers", "{\"name\":\"" + w + "\",\"endpoint\":\"http://127.0.0.1:1\"}")
              .status());
    }
    placed("rep-a", "rep-1");
    long signalsBefore = observedSignals("rep-a");

    assertEquals(
        204, http.put("/v1/workers/rep-2/tasks", report("rep-a.0", "running", null)).status());
    assertEquals("scheduled", status("rep-a"), "another worker cannot speak for rep-1's VM");
    assertEquals(
        204, http.put("/v1/workers/rep-1/tasks", report("rep-a.1", "running", null)).status());
    assertEquals(
        "scheduled", status("rep-a"), "a task of another restart generation changes nothing");

    assertEquals(
        204, http.put("/v1/workers/rep-1/tasks", report("rep-a.0", "running", null)).status());
    eventually("rep-a running, as its workflow records it", () -> statusIs("rep-a", "running"));
    Map<String, Object> vm = http.get("/v1/vms/rep-a").map();
    assertEquals("rep-1", vm.get("worker"));
    assertNotNull(vm.get("startedAt"));
    List<Object> types =
        http.get("/v1/vms/rep-a/events").items().stream().map(e -> e.get("type")).toList();
    assertEquals(List.of("created", "scheduled", "started"), types);
    // Told after the report was answered (TaskReports).
    eventually("rep-a's workflow told", () -> observedSignals("rep-a") > signalsBefore);
    assertEquals(signalsBefore + 1, observedSignals("rep-a"), "the VM's workflow was told, once");

    assertEquals(
        204, http.put("/v1/workers/rep-1/tasks", report("rep-a.0", "running", null)).status());
    assertEquals(
        signalsBefore + 1,
        observedSignals("rep-a"),
        "a repeated report changes nothing and tells nobody");

    assertEquals(204, http.put("/v1/workers/rep-1/tasks", report("rep-a.0", "exited", 3)).status());
    eventually("rep-a failed", () -> statusIs("rep-a", "failed"));
    vm = http.get("/v1/vms/rep-a").map();
    assertEquals("failed", vm.get("status"));
    assertEquals(3, vm.get("exitCode"));
    assertEquals("task rep-a.0 exited with code 3", vm.get("statusMessage"));
  }

  @Test
  void badReportsAre400NamingTheFieldAndChangeNothing() throws InterruptedException {
    assertEquals(
        201,
        http.post("/v1/workers", "{\"name\":\"rep-3\",\"endpoint\":\"http://127.0.0.1:1\"}")
            .status());
    placed("rep-b", "rep-3");
    for (String[] bad :
        List.of(
            new String[] {"{\"tasks\":\"rep-b.0\"}", "tasks: must be a list"},
            new String[] {"{\"tasks\":[\"rep-b.0\"]}", "tasks[0]: must be an object"},
            new String[] {
              "{\"tasks\":[{\"id\":\"rep-b.0\",\"state\":\"sleeping\"}]}", "tasks.0.state"
            },
            new String[] {
              "{\"tasks\":[{\"id\":\"rep-b.0\",\"state\":\"running\",\"exitCode\":\"x\"}]}",
              "tasks[0].exitCode: must be a number"
            },
            new String[] {"{\"tasks\":[{\"state\":\"running\"}]}", "tasks.0.id"},
            new String[] {"{}", "tasks"})) {
      Http.Reply reply = http.put("/v1/workers/rep-3/tasks", bad[0]);
      assertEquals(400, reply.status(), bad[0] + " -> " + reply);
      assertTrue(reply.isProblem());
      assertTrue(reply.detail().contains(bad[1]), bad[0] + " -> " + reply.detail());
    }
    assertEquals("scheduled", status("rep-b"));
    Http.Reply unknown = http.put("/v1/workers/nobody/tasks", report("rep-b.0", "running", null));
    assertEquals(404, unknown.status(), "an unknown worker's agent registers again");
    assertEquals("scheduled", status("rep-b"));
  }
}
