package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dev mode restarted on the same data folder: the embedded Temporal state is gone, the VMs are not.
 */
class RestartTest {
  @TempDir Path dataDir;

  private static HttpResponse<String> send(int port, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyVmGetsItsWorkflowBackAndKeepsItsStatus() throws Exception {
    int http = FreePorts.next();
    int temporal = FreePorts.next();
    try (RotaHost first =
        RotaHost.start(HostMode.DEV, DevStackTest.devProperties(http, temporal, dataDir))) {
      assertEquals(
          201,
          send(http, "POST", "/v1/vms", "{\"name\":\"keep-me\",\"command\":[\"sleep\",\"9\"]}")
              .statusCode());
      assertEquals(
          201,
          send(http, "POST", "/v1/vms", "{\"name\":\"stopped-one\",\"command\":[\"sleep\",\"9\"]}")
              .statusCode());
      assertEquals(202, send(http, "POST", "/v1/vms/stopped-one/stop", null).statusCode());
      assertEquals(0, first.restoredVms(), "nothing to restore on a fresh data folder");
    }

    try (RotaHost second =
        RotaHost.start(HostMode.DEV, DevStackTest.devProperties(http, temporal, dataDir))) {
      assertEquals(1, second.restoredVms(), "the stopped VM needs no run until it is acted on");
      WorkflowClient client = second.context().getBean(WorkflowClient.class);
      var kept = client.newUntypedWorkflowStub(VmWorkflow.workflowId("keep-me")).describe();
      assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, kept.getStatus());
      assertTrue(
          send(http, "GET", "/v1/vms/stopped-one", null).body().contains("\"status\":\"stopped\""));
      HttpResponse<String> start = send(http, "POST", "/v1/vms/stopped-one/start", null);
      assertEquals(
          202,
          start.statusCode(),
          "the run begun by the start knows it was stopped: " + start.body());
      assertEquals(
          409,
          send(http, "POST", "/v1/vms/keep-me/start", null).statusCode(),
          "and this one pending");
    } finally {
      Stack.endTasks(dataDir);
    }
  }
}
