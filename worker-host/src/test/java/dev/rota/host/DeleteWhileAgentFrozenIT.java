package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A VM deleted while its worker's agent is frozen (SIGSTOP): the deletion does not wait for that
 * agent (its task's removal gives up, and the rows go), and once the agent is thawed the scheduler
 * removes the task no VM holds, so that its process ends.
 */
class DeleteWhileAgentFrozenIT {
  private static final String SLEEP = "852741";

  @Test
  void aVmDeletedWhileItsAgentIsFrozenIsGoneAndItsProcessEndsOnceTheAgentIsBack() throws Exception {
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

      long agent = stack.agent(0).pid();
      Signals.send("STOP", agent);
      try {
        assertEquals(202, api.api("DELETE", "/v1/vms/doomed", null).status());
        eventually(
            "doomed gone from the API while its agent is frozen",
            Duration.ofSeconds(120),
            () -> api.api("GET", "/v1/vms/doomed", null).status() == 404);
        assertEquals(
            1,
            Vms.sleeping().getOrDefault(SLEEP, List.of()).size(),
            "its process runs on while its agent cannot be told");
      } finally {
        Signals.send("CONT", agent);
      }
      eventually(
          "its process ended once the agent is back",
          Duration.ofSeconds(120),
          () -> Vms.sleeping().getOrDefault(SLEEP, List.of()).isEmpty());
      assertEquals(404, api.api("GET", "/v1/vms/doomed", null).status(), "not made again");
    }
  }
}
