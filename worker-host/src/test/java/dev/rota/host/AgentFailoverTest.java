package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.rota.agent.Agent;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent that dies: its worker goes lost, then offline, and its OnFailure VM runs on the other
 * one.
 */
class AgentFailoverTest {
  @TempDir Path dataDir;

  @Test
  void onFailureVmsComeBackOnTheOtherWorker() {
    try (Stack stack = new Stack(dataDir)) {
      eventually(
          "both agents ready",
          () ->
              Integer.valueOf(2)
                  .equals(
                      ((Map<?, ?>) stack.api("GET", "/v1/cluster", null).map().get("workers"))
                          .get("ready")));
      stack.api(
          "POST",
          "/v1/vms",
          "{\"name\":\"mover\",\"command\":[\"sleep\",\"302\"],\"restartPolicy\":\"OnFailure\"}");
      eventually("running", () -> "running".equals(stack.vm("mover").get("status")));
      String first = (String) stack.vm("mover").get("worker");
      Agent dying =
          stack.host.devAgents().stream()
              .filter(a -> a.name().equals(first))
              .findFirst()
              .orElseThrow();

      dying.close(); // its heartbeats and task API stop, as if the process were killed
      eventually(
          "lost",
          () -> "lost".equals(stack.api("GET", "/v1/workers/" + first, null).map().get("health")));
      eventually(
          "offline",
          () ->
              "offline".equals(stack.api("GET", "/v1/workers/" + first, null).map().get("health")));
      eventually(
          "running elsewhere",
          () -> {
            Map<String, Object> vm = stack.vm("mover");
            return "running".equals(vm.get("status")) && !first.equals(vm.get("worker"));
          });
      Map<String, Object> moved = stack.vm("mover");
      assertNotEquals(first, moved.get("worker"));
      assertEquals(1, moved.get("restartCount"));
    } finally {
      // The dead agent's process outlives it, as a real one would; the test cleans up after itself.
      Stack.processes("sleep 302").forEach(ProcessHandle::destroyForcibly);
    }
  }
}
