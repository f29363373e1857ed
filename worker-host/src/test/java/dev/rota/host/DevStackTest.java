package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.host.temporal.SearchAttributeRegistrar;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev stack as {@code rota.jar dev} starts it, on free ports, in this JVM. */
class DevStackTest {
  @TempDir static Path dataDir;

  static int httpPort;
  static int temporalPort;
  static RotaHost host;

  static Map<String, Object> devProperties(int http, int temporal, Path dir) {
    Map<String, Object> props = new HashMap<>();
    props.put("micronaut.server.port", http);
    props.put("rota.temporal.port", temporal);
    props.put("rota.data-dir", dir.toString());
    // The same server wherever the suite runs, whether or not a Temporal CLI is on the PATH.
    props.put("rota.temporal.dev-server", "embedded");
    return props;
  }

  @BeforeAll
  static void startDevStack() {
    httpPort = FreePorts.next();
    temporalPort = FreePorts.next();
    host = RotaHost.start(HostMode.DEV, devProperties(httpPort, temporalPort, dataDir));
  }

  @AfterAll
  static void stop() {
    if (host != null) {
      host.close();
    }
  }

  @Test
  void theClusterWorkflowIsRunning() {
    WorkflowClient client = host.context().getBean(WorkflowClient.class);
    var description = client.newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID).describe();
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, description.getStatus());
    assertEquals(host.clusterExecution().getRunId(), description.getExecution().getRunId());
  }

  @Test
  void theApiAnswersOnLoopbackWithTheSchedulersTerm() throws Exception {
    assertEquals("127.0.0.1", host.apiUri().getHost());
    assertEquals(httpPort, host.apiUri().getPort());
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/v1/cluster"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode());
    assertTrue(
        response.body().contains("\"schedulerWorkflowId\":\"rota-cluster\""), response.body());
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthReportsUpWithoutDetails() throws Exception {
    HttpResponse<String> health = get("/health");
    assertEquals(200, health.statusCode(), health.body());
    assertEquals("{\"status\":\"UP\"}", health.body(), "status only, no details");
    assertTrue(host.context().containsBean(dev.rota.host.temporal.TemporalHealthIndicator.class));
  }

  @Test
  void devModeServesTheOpenApiDocumentAndSwaggerUi() throws Exception {
    HttpResponse<String> document = get("/swagger/rota-1.yml");
    assertEquals(200, document.statusCode());
    assertTrue(document.body().contains("/v1/vms/{name}/events"), "generated from the controllers");
    assertEquals(200, get("/swagger-ui/index.html").statusCode());
  }

  @Test
  void searchAttributesWereRegisteredAtStartUp() {
    assertTrue(
        host.context().getBean(SearchAttributeRegistrar.class).registerMissing().isEmpty(),
        "every attribute already exists, so a second registration adds none");
  }

  @Test
  void theDatabaseIsAFileInTheDataFolder() {
    assertTrue(Files.exists(dataDir.resolve("rota.mv.db")), "H2 keeps its file in ROTA_DATA_DIR");
  }

  @Test
  void aSecondDevStackOnTheSamePortsFailsNamingThePort(@TempDir Path otherDir) {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> RotaHost.start(HostMode.DEV, devProperties(httpPort, temporalPort, otherDir)));
    assertTrue(e.getMessage().contains("127.0.0.1:" + temporalPort), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line");
    theClusterWorkflowIsRunning();
  }

  @Test
  void aTakenApiPortIsNamed(@TempDir Path otherDir) {
    StartupException e =
        assertThrows(
            StartupException.class,
            () ->
                RotaHost.start(HostMode.DEV, devProperties(httpPort, FreePorts.next(), otherDir)));
    assertTrue(e.getMessage().contains("127.0.0.1:" + httpPort), e.getMessage());
    assertTrue(e.getMessage().contains("MICRONAUT_SERVER_PORT"), e.getMessage());
  }
}
