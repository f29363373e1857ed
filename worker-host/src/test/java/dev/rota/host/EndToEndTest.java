package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agent.Agent;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agents.AgentClient;
import dev.rota.store.AgentAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Dev mode with its two real agents running real processes on loopback. */
class EndToEndTest extends SharedDevStack {

  @Test
  void aSleepVmRunsAsARealProcessAndDeletingItKillsTheProcess() {
    assertEquals(
        201,
        stack
            .api("POST", "/v1/vms", "{\"name\":\"sleeper\",\"command\":[\"sleep\",\"300\"]}")
            .status());
    eventually("running", () -> "running".equals(stack.vm("sleeper").get("status")));
    eventually("the process exists", () -> Stack.processes("sleep 300").size() == 1);

    assertEquals(202, stack.api("DELETE", "/v1/vms/sleeper", null).status());
    eventually(
        "gone from the API", () -> stack.api("GET", "/v1/vms/sleeper", null).status() == 404);
    eventually("the process is gone", () -> Stack.processes("sleep 300").isEmpty());
  }

  @Test
  void aVmsOutputIsServedThroughTheApiFromItsWorker() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"talker\",\"command\":[\"sh\",\"-c\",\"echo to-stdout; echo to-stderr >&2; sleep 300\"]}");
    eventually("running", () -> "running".equals(stack.vm("talker").get("status")));
    eventually(
        "stdout passed through",
        () -> stack.api("GET", "/v1/vms/talker/logs", null).body().contains("to-stdout"));
    RotaClient.Reply stderr = stack.api("GET", "/v1/vms/talker/logs?stream=stderr", null);
    assertEquals(200, stderr.status());
    assertEquals("to-stderr\n", stderr.body());

    RotaClient.Reply bad = stack.api("GET", "/v1/vms/talker/logs?stream=stdin", null);
    assertEquals(400, bad.status());
    assertTrue(bad.body().contains("stream: must be stdout or stderr"), bad.body());
    assertEquals(404, stack.api("GET", "/v1/vms/nobody/logs", null).status());
    stack.api("POST", "/v1/vms/talker/stop", null);
    eventually("stopped", () -> "stopped".equals(stack.vm("talker").get("status")));
    RotaClient.Reply gone = stack.api("GET", "/v1/vms/talker/logs", null);
    assertEquals(409, gone.status(), "its task was removed with the stop: " + gone.body());
    assertTrue(gone.body().contains("talker.0"), gone.body());
  }

  @Test
  void aCommandExitingThreeUnderNeverEndsFailedWithExitCodeThree() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"exit-three\",\"command\":[\"sh\",\"-c\",\"exit 3\"],\"restartPolicy\":\"Never\"}");
    eventually("failed", () -> "failed".equals(stack.vm("exit-three").get("status")));
    Map<String, Object> vm = stack.vm("exit-three");
    assertEquals(3, vm.get("exitCode"));
    assertEquals(0, vm.get("restartCount"));
  }

  @Test
  void underOnFailureItRestartsWithGrowingDelays() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"crashy\",\"command\":[\"sh\",\"-c\",\"exit 1\"],\"restartPolicy\":\"OnFailure\"}");
    eventually(
        "restarted twice", () -> ((Number) stack.vm("crashy").get("restartCount")).intValue() >= 2);
    List<String> events = stack.eventTypes("crashy");
    assertTrue(
        events.contains("restart-scheduled") && events.contains("restarted"), events.toString());
    // Each end is heard twice here (the agent's report, then the placement's notification reading
    // the row after it); each must be counted once: as many restarts scheduled as tasks ended.
    long ended = events.stream().filter(e -> e.equals("failed")).count();
    long scheduled = events.stream().filter(e -> e.equals("restart-scheduled")).count();
    assertTrue(scheduled == ended || scheduled == ended - 1, "one restart per end: " + events);
  }

  @Test
  void aTaskPutOnAnAgentByHandIsRemovedAsAnOrphan() {
    Agent agent = stack.host.devAgents().get(1);
    // By hand, over the agent's HTTPS, trusting its certificate by its pin as the controller does.
    AgentClient client = stack.host.context().getBean(AgentClient.class);
    AgentAddress address =
        new AgentAddress(
            "https://127.0.0.1:" + agent.port(), agent.secret(), agent.certificateSha256());
    client.startTask(
        address,
        "stray.0",
        new TaskSpec("stray", 0, "process", null, List.of("sleep", "301"), Map.of(), Map.of()),
        Duration.ofSeconds(10));
    // Started: its cgroup's shell execs into sleep a moment later, and the process list may catch
    // it between.
    eventually("its process runs", () -> Stack.processes("sleep 301").size() == 1);
    eventually(
        "removed by the scheduler",
        () ->
            client.probe(address, Duration.ofSeconds(10)).tasks().stream()
                .noneMatch(t -> t.id().equals("stray.0")));
    eventually("and its process ended", () -> Stack.processes("sleep 301").isEmpty());
  }
}
