package dev.rota.host;

import static dev.rota.host.Stack.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agent.Agent;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dev mode with its two real agents running real processes on loopback. */
class EndToEndTest {
  @TempDir static Path dataDir;
  static Stack stack;

  @BeforeAll
  static void start() {
    stack = new Stack(dataDir);
    eventually("both agents ready", () -> {
      Map<String, Object> cluster = stack.api("GET", "/v1/cluster", null).map();
      return Integer.valueOf(2).equals(((Map<?, ?>) cluster.get("workers")).get("ready"));
    });
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aSleepVmRunsAsARealProcessAndDeletingItKillsTheProcess() {
    assertEquals(201, stack.api("POST", "/v1/vms", "{\"name\":\"sleeper\",\"command\":[\"sleep\",\"300\"]}").status());
    eventually("running", () -> "running".equals(stack.vm("sleeper").get("status")));
    eventually("the process exists", () -> Stack.processes("sleep 300").size() == 1);

    assertEquals(202, stack.api("DELETE", "/v1/vms/sleeper", null).status());
    eventually("gone from the API", () -> stack.api("GET", "/v1/vms/sleeper", null).status() == 404);
    eventually("the process is gone", () -> Stack.processes("sleep 300").isEmpty());
  }

  @Test
  void aCommandExitingThreeUnderNeverEndsFailedWithExitCodeThree() {
    stack.api("POST", "/v1/vms", "{\"name\":\"exit-three\",\"command\":[\"sh\",\"-c\",\"exit 3\"],\"restartPolicy\":\"Never\"}");
    eventually("failed", () -> "failed".equals(stack.vm("exit-three").get("status")));
    Map<String, Object> vm = stack.vm("exit-three");
    assertEquals(3, vm.get("exitCode"));
    assertEquals(0, vm.get("restartCount"));
  }

  @Test
  void underOnFailureItRestartsWithGrowingDelays() {
    stack.api("POST", "/v1/vms", "{\"name\":\"crashy\",\"command\":[\"sh\",\"-c\",\"exit 1\"],\"restartPolicy\":\"OnFailure\"}");
    eventually("restarted twice", () -> ((Number) stack.vm("crashy").get("restartCount")).intValue() >= 2);
    List<String> events = stack.eventTypes("crashy");
    assertTrue(events.contains("restart-scheduled") && events.contains("restarted"), events.toString());
  }

  @Test
  void aTaskPutOnAnAgentByHandIsRemovedAsAnOrphan() {
    Agent agent = stack.host.devAgents().get(1);
    String base = "http://127.0.0.1:" + agent.port();
    Stack.Reply put =
        stack.send("PUT", base + "/v1/tasks/stray.0", "{\"vm\":\"stray\",\"runtime\":\"process\",\"command\":[\"sleep\",\"301\"]}",
            agent.secret());
    assertEquals(201, put.status(), put.body());
    assertEquals(1, Stack.processes("sleep 301").size());
    eventually("removed by the scheduler", () -> !stack.send("GET", base + "/v1/tasks", null, agent.secret()).body().contains("stray.0"));
    eventually("and its process ended", () -> Stack.processes("sleep 301").isEmpty());
  }
}
