package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowExecutionMetadata;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A production host ({@code rota.jar}, no {@code dev}) on the real Temporal server and PostgreSQL,
 * with auth on and two real agents running real processes: what a user of the docker stack gets.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProductionHostIT {
  private static ProductionStack stack;
  private static RotaClient api;

  @BeforeAll
  static void start() throws Exception {
    stack =
        ProductionStack.start(
            ProductionStack.folder("production-host"),
            1,
            2,
            Map.of(
                "ROTA_SCHEDULER_INTERVAL", "1s",
                "ROTA_VMS_RESTART_DELAY", "1s",
                "ROTA_VMS_MAX_RESTART_DELAY", "2s"));
    api = stack.admin(0);
  }

  @AfterAll
  static void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  @Order(1)
  void aVmRunsShowsItsLogsStopsStartsRestartsAndIsDeleted() {
    create(
        "{\"name\":\"sleeper\",\"command\":[\"sh\",\"-c\",\"echo hello-from-rota; exec sleep 3701\"]}");
    eventually("sleeper running", () -> "running".equals(api.vm("sleeper").get("status")));
    eventually("one process", () -> Stack.processes("sleep 3701").size() == 1);
    eventually(
        "its output in its logs",
        () -> api.api("GET", "/v1/vms/sleeper/logs", null).body().contains("hello-from-rota"));

    assertEquals(202, api.api("POST", "/v1/vms/sleeper/stop", null).status());
    eventually("stopped", () -> "stopped".equals(api.vm("sleeper").get("status")));
    eventually("its process ended", () -> Stack.processes("sleep 3701").isEmpty());
    assertEquals(
        409, api.api("POST", "/v1/vms/sleeper/stop", null).status(), "a stopped VM cannot stop");

    assertEquals(202, api.api("POST", "/v1/vms/sleeper/start", null).status());
    eventually("running again", () -> "running".equals(api.vm("sleeper").get("status")));
    assertEquals(1, ((Number) api.vm("sleeper").get("restartCount")).intValue());

    assertEquals(202, api.api("POST", "/v1/vms/sleeper/restart", null).status());
    eventually(
        "restarted",
        () ->
            "running".equals(api.vm("sleeper").get("status"))
                && ((Number) api.vm("sleeper").get("restartCount")).intValue() == 2);
    eventually("one process after the restart", () -> Stack.processes("sleep 3701").size() == 1);

    assertEquals(202, api.api("DELETE", "/v1/vms/sleeper", null).status());
    eventually("gone", () -> api.api("GET", "/v1/vms/sleeper", null).status() == 404);
    eventually("its process ended", () -> Stack.processes("sleep 3701").isEmpty());
  }

  @Test
  @Order(2)
  void aVmThatFailsIsRestartedByItsPolicyWithItsExitCodeKept() {
    create(
        "{\"name\":\"crasher\",\"command\":[\"sh\",\"-c\",\"exit 3\"],\"restartPolicy\":\"OnFailure\"}");
    eventually(
        "restarted twice", () -> ((Number) api.vm("crasher").get("restartCount")).intValue() >= 2);
    List<String> events = api.eventTypes("crasher");
    assertTrue(
        events.containsAll(
            List.of("created", "scheduled", "failed", "restart-scheduled", "restarted")),
        events.toString());
    eventually(
        "failed with exit code 3",
        () -> {
          Map<String, Object> vm = api.vm("crasher");
          return Integer.valueOf(3).equals(vm.get("exitCode"))
              && ((String) vm.get("statusMessage")).contains("3");
        });
    assertEquals(202, api.api("DELETE", "/v1/vms/crasher", null).status());
    eventually("gone", () -> api.api("GET", "/v1/vms/crasher", null).status() == 404);
  }

  @Test
  @Order(3)
  void visibilityQueriesListExactlyWhatTheApiLists() {
    for (int i = 1; i <= 4; i++) {
      create("{\"name\":\"seen-" + i + "\",\"command\":[\"sleep\",\"372" + i + "\"]}");
    }
    create("{\"name\":\"seen-gone\",\"command\":[\"sleep\",\"3729\"]}");
    eventually("all running", () -> names("/v1/vms?status=running").size() == 5);
    assertEquals(202, api.api("DELETE", "/v1/vms/seen-gone", null).status());
    eventually("one deleted", () -> api.api("GET", "/v1/vms/seen-gone", null).status() == 404);

    eventually(
        "RotaVmStatus = 'running' lists the API's running VMs",
        () -> workflows("RotaVmStatus = 'running'").equals(names("/v1/vms?status=running")));
    assertEquals(4, names("/v1/vms?status=running").size(), "the deleted VM is in neither list");
    for (String worker : List.of("w1", "w2")) {
      eventually(
          "RotaWorker = '" + worker + "' lists the API's VMs on it",
          () ->
              workflows("RotaWorker = '" + worker + "' AND ExecutionStatus = 'Running'")
                  .equals(names("/v1/vms?worker=" + worker)));
    }
    assertEquals(4, names("/v1/vms?worker=w1").size() + names("/v1/vms?worker=w2").size());
    assertTrue(
        workflows("RotaWorker = 'w1' OR RotaWorker = 'w2'").contains("sleeper"),
        "the runs that ended keep where they ran: the stopped sleeper's among them");
    eventually(
        "a deleted VM's closed workflow says so",
        () -> workflows("RotaVmStatus = 'deleted'").contains("seen-gone"));
  }

  @Test
  @Order(4)
  void prometheusScrapesMetricsWithAComputeReadTokenAndNothingElseGetsThem() {
    RotaClient.Reply account =
        api.api(
            "POST",
            "/v1/service-accounts",
            "{\"name\":\"prometheus\",\"roles\":[\"compute:read\"]}");
    assertEquals(201, account.status(), account.body());
    RotaClient scraper = new RotaClient(api.base(), (String) account.map().get("token"));
    RotaClient.Reply scraped = scraper.api("GET", "/metrics", null);
    assertEquals(200, scraped.status(), scraped.body());
    assertTrue(
        scraped.body().contains("rota_workers{health=\"ready\"} 2.0"),
        "both agents: " + scraped.body());
    assertTrue(
        scraped.body().contains("rota_vms{status=\"running\"} 4.0"),
        "the four VMs the test before left");
    assertEquals(
        401,
        new RotaClient(api.base(), null).api("GET", "/metrics", null).status(),
        "no token, no metrics");
  }

  private static void create(String body) {
    RotaClient.Reply created = api.api("POST", "/v1/vms", body);
    assertEquals(201, created.status(), created.body());
  }

  private static Set<String> names(String path) {
    return api.items(path).stream()
        .map(vm -> (String) vm.get("name"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The VMs whose workflows a visibility query lists (workflow ids {@code vm-<name>}). */
  private static Set<String> workflows(String query) {
    return stack
        .temporalClient
        .listExecutions(query)
        .map(WorkflowExecutionMetadata::getExecution)
        .map(e -> e.getWorkflowId().substring("vm-".length()))
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
