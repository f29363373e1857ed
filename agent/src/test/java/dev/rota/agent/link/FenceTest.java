package dev.rota.agent.link;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.Agent;
import dev.rota.agent.AgentCalls;
import dev.rota.agent.config.AgentConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent that no controller host answers for longer than the fence its heartbeats were told stops
 * its tasks, each failed saying why, and takes tasks again once a host answers; the fence survives
 * a restart.
 */
class FenceTest {
  @TempDir Path data;
  private final AtomicBoolean answering = new AtomicBoolean(true);
  private HttpServer controller;
  private Agent agent;
  private AgentCalls calls;

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.close();
    }
    if (controller != null) {
      controller.stop(0);
    }
  }

  /**
   * A controller that takes registrations, heartbeats (fence: 2 s) and task reports while {@link
   * #answering}.
   */
  private void controller() throws Exception {
    controller = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controller.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.getResponseHeaders().add("Rota-Heartbeat-Interval", "1");
          exchange.getResponseHeaders().add("Rota-Fence-After", "2");
          int status =
              !answering.get() ? 503 : exchange.getRequestMethod().equals("POST") ? 201 : 204;
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    controller.start();
  }

  private void agent() {
    agent =
        Agent.start(
            AgentConfig.from(
                Map.of(
                    "ROTA_CONTROLLER_URL", "http://127.0.0.1:" + controller.getAddress().getPort(),
                    "ROTA_WORKER_NAME", "fenced-1",
                    "ROTA_AGENT_PORT", "0",
                    "ROTA_AGENT_DATA_DIR", data.toString(),
                    "ROTA_AGENT_STOP_GRACE", "300ms",
                    "ROTA_AGENT_HEARTBEAT_INTERVAL", "1s",
                    "ROTA_AGENT_INSECURE_HTTP", "true",
                    "ROTA_WORKER_RUNTIMES", "process"),
                new String[0]));
    calls = new AgentCalls(agent);
  }

  /** A controller and its agent, once a heartbeat's answer told the agent the fence. */
  private void toldTheFence() throws Exception {
    controller();
    agent();
    eventually("a heartbeat told the fence", () -> Files.exists(data.resolve("fence")));
  }

  /** When a host last answered, as the agent keeps it (epoch millis). */
  private long heardAt() {
    try {
      return Long.parseLong(Files.readString(data.resolve("fence")).strip().split(" ")[0]);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void cutOffPastTheFenceItsTasksStopFailedSayingWhyAndItTakesTasksAgainOnceAHostAnswers()
      throws Exception {
    toldTheFence();
    assertEquals(201, calls.putSleep("walled", "3311"));
    eventually("running", () -> "running".equals(calls.task("walled.0").get("state")));
    AgentCalls.theProcess("sleep 3311");

    answering.set(false);
    eventually("stopped at the fence", () -> "failed".equals(calls.task("walled.0").get("state")));
    String message = (String) calls.task("walled.0").get("message");
    assertTrue(
        message.startsWith("stopped by its agent: no controller host has answered for "), message);
    assertTrue(message.contains("past the fence of 2 s"), message);
    assertTrue(AgentCalls.processes("sleep 3311").isEmpty(), "its process is gone");

    answering.set(true);
    eventually("heard again", () -> System.currentTimeMillis() - heardAt() < 1500);
    assertEquals(
        201,
        calls
            .send(
                "PUT",
                "/v1/tasks/walled.1",
                "{\"vm\":\"walled\",\"restartCount\":1,\"runtime\":\"process\",\"command\":[\"sleep\",\"3312\"]}")
            .statusCode());
    eventually(
        "a new task runs, and stays", () -> "running".equals(calls.task("walled.1").get("state")));
    AgentCalls.theProcess("sleep 3312");
    assertEquals(204, calls.send("DELETE", "/v1/tasks/walled.1", null).statusCode());
  }

  @Test
  void anAgentRestartedWhileCutOffKeepsTheClockItHad() throws Exception {
    toldTheFence();
    assertEquals(201, calls.putSleep("kept", "3313"));
    eventually("running", () -> "running".equals(calls.task("kept.0").get("state")));
    // Closed before the hosts stop answering: a close slower than the 2 s fence (a loaded machine)
    // would otherwise see the fence pass and stop the task this test needs running.
    agent.close(); // its task runs on, as a task outlives its agent
    agent = null;
    answering.set(false);
    assertEquals(1, AgentCalls.processes("sleep 3313").size());
    // The last answer came longer than the fence ago, as if the agent had been down and cut off
    // that long.
    Files.writeString(data.resolve("fence"), (heardAt() - 5_000) + " 2");

    agent();
    eventually(
        "the adopted task stopped at the fence",
        () -> calls.task("kept.0") != null && "failed".equals(calls.task("kept.0").get("state")));
    assertTrue(AgentCalls.processes("sleep 3313").isEmpty(), "its process is gone");
  }

  private int putKept(String vm, String seconds, String disconnect) throws Exception {
    return calls
        .send(
            "PUT",
            "/v1/tasks/" + vm + ".0",
            "{\"vm\":\""
                + vm
                + "\",\"restartCount\":0,\"runtime\":\"process\","
                + "\"command\":[\"sleep\",\""
                + seconds
                + "\"],\"disconnect\":"
                + disconnect
                + "}")
        .statusCode();
  }

  @Test
  void aVmThatKeepsThroughACutRunsOnPastTheFenceForGoodOrForItsOwnTime() throws Exception {
    toldTheFence();
    assertEquals(201, calls.putSleep("usual", "3314"));
    assertEquals(201, putKept("stays", "3315", "{\"replace\":false}"));
    assertEquals(201, putKept("awhile", "3316", "{\"replace\":false,\"stopAfterSeconds\":4}"));
    for (String vm : java.util.List.of("usual", "stays", "awhile")) {
      eventually(vm + " running", () -> "running".equals(calls.task(vm + ".0").get("state")));
    }

    answering.set(false);
    eventually(
        "the usual one stopped at the fence",
        () -> "failed".equals(calls.task("usual.0").get("state")));
    assertEquals("running", calls.task("stays.0").get("state"), "kept past the fence");
    eventually(
        "the one with its own time stopped at it",
        () -> "failed".equals(calls.task("awhile.0").get("state")));
    String message = (String) calls.task("awhile.0").get("message");
    assertTrue(message.contains("past its disconnect.stopAfterSeconds of 4"), message);
    assertTrue(AgentCalls.processes("sleep 3316").isEmpty());
    assertEquals("running", calls.task("stays.0").get("state"), "still kept, however long the cut");
    assertEquals(1, AgentCalls.processes("sleep 3315").size());

    answering.set(true);
    eventually("heard again", () -> System.currentTimeMillis() - heardAt() < 1500);
    assertEquals("running", calls.task("stays.0").get("state"), "and runs on once heard again");
    assertEquals(204, calls.send("DELETE", "/v1/tasks/stays.0", null).statusCode());
  }
}
