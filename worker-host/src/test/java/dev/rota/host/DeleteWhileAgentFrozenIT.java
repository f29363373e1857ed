package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A VM, and a set with its replicas, deleted while their worker's agent is frozen (SIGSTOP): the
 * deletions do not wait for that agent (the VM's removal and the replicas' batch of removals give
 * up, and the rows go), and once the agent is thawed the scheduler removes the tasks no VM holds,
 * so that their processes end.
 */
class DeleteWhileAgentFrozenIT {
  private static final String SLEEP = "852741";
  private static final String REPLICA_SLEEP = "852742";

  @Test
  void vmsDeletedWhileTheirAgentIsFrozenAreGoneAndTheirProcessesEndOnceTheAgentIsBack()
      throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("delete-frozen"),
            1,
            1,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_API_INSECURE_HTTP", "true"))) {
      RotaClient api = stack.admin(0);
      assertEquals(
          201,
          api.api(
                  "POST",
                  "/v1/vms",
                  "{\"name\":\"doomed\",\"command\":[\"sleep\",\"" + SLEEP + "\"]}")
              .status());
      eventually("doomed running", () -> "running".equals(api.vm("doomed").get("status")));
      eventually("its process", () -> Vms.sleeping().getOrDefault(SLEEP, List.of()).size() == 1);
      assertEquals(
          201,
          api.api(
                  "POST",
                  "/v1/vm-sets",
                  "{\"name\":\"doomed-set\",\"replicas\":3,\"template\":{\"command\":"
                      + "[\"sleep\",\""
                      + REPLICA_SLEEP
                      + "\"]}}")
              .status());
      eventually(
          "the replicas' processes",
          () -> Vms.sleeping().getOrDefault(REPLICA_SLEEP, List.of()).size() == 3);

      long agent = stack.agent(0).pid();
      Signals.send("STOP", agent);
      try {
        assertEquals(202, api.api("DELETE", "/v1/vms/doomed", null).status());
        assertEquals(202, api.api("DELETE", "/v1/vm-sets/doomed-set", null).status());
        eventually(
            "doomed gone from the API while its agent is frozen",
            Duration.ofSeconds(120),
            () -> api.api("GET", "/v1/vms/doomed", null).status() == 404);
        eventually(
            "the set and its replicas gone from the API while their agent is frozen",
            Duration.ofSeconds(120),
            () ->
                api.api("GET", "/v1/vm-sets/doomed-set", null).status() == 404
                    && api.api("GET", "/v1/vms/doomed-set-0", null).status() == 404);
        assertEquals(
            1,
            Vms.sleeping().getOrDefault(SLEEP, List.of()).size(),
            "its process runs on while its agent cannot be told");
        assertEquals(
            3, Vms.sleeping().getOrDefault(REPLICA_SLEEP, List.of()).size(), "so do the replicas'");
      } finally {
        Signals.send("CONT", agent);
      }
      eventually(
          "its process ended once the agent is back",
          Duration.ofSeconds(120),
          () -> Vms.sleeping().getOrDefault(SLEEP, List.of()).isEmpty());
      eventually(
          "the replicas' processes ended too",
          Duration.ofSeconds(120),
          () -> Vms.sleeping().getOrDefault(REPLICA_SLEEP, List.of()).isEmpty());
      assertEquals(404, api.api("GET", "/v1/vms/doomed", null).status(), "not made again");
      for (int i = 0; i < 3; i++) {
        assertEquals(
            404, api.api("GET", "/v1/vms/doomed-set-" + i, null).status(), "not made again");
      }
    }
  }
}
