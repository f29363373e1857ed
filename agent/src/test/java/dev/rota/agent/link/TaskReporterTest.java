package dev.rota.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.config.AgentConfig;
import dev.rota.agentapi.TaskView;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The agent's pushed task reports, against a controller that answers over real HTTP. */
class TaskReporterTest {
  private final ObjectMapper json = new ObjectMapper();
  private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
  private HttpServer controller;

  @AfterEach
  void stop() {
    timers.shutdownNow();
    if (controller != null) {
      controller.stop(0);
    }
  }

  /**
   * A task's newer state is not sent beside an older one still under way: the controller would
   * write whichever arrives last, and a readiness that passed would read as not ready again.
   */
  @Test
  void aTasksNewerStateWaitsForTheReportOfItsOlderOneToBeAnswered() throws Exception {
    CountDownLatch firstArrived = new CountDownLatch(1);
    CountDownLatch answerFirst = new CountDownLatch(1);
    List<String> received = new CopyOnWriteArrayList<>();
    controller = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controller.setExecutor(Executors.newCachedThreadPool());
    controller.createContext(
        "/",
        exchange -> {
          JsonNode report = json.readTree(exchange.getRequestBody());
          for (JsonNode task : report.path("tasks")) {
            received.add(task.path("id").asText() + " ready=" + task.path("ready").asText());
          }
          if (received.size() == 1) {
            firstArrived.countDown();
            try {
              answerFirst.await(30, TimeUnit.SECONDS); // the older report is slow to be answered
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    controller.start();
    AgentConfig config =
        AgentConfig.from(
            Map.of(
                "ROTA_CONTROLLER_URL",
                "http://127.0.0.1:" + controller.getAddress().getPort(),
                "ROTA_WORKER_NAME",
                "w1"),
            new String[0]);
    TaskReporter reporter =
        new TaskReporter(
            new ControllerClient(config, json, ControllerClient.httpClient(config)),
            "w1",
            timers,
            Duration.ofSeconds(1));
    reporter.start();

    reporter.changed(view(false, null));
    assertTrue(firstArrived.await(30, TimeUnit.SECONDS), "the first report arrived");
    reporter.changed(view(true, "2026-11-29T05:00:00Z"));
    // The newer state is due now; had it gone out, the controller would have it before the older
    // report is answered. A report of another task is no reason to hold it: it goes meanwhile.
    reporter.changed(new TaskView("vm-b.0", "vm-b", "running", null, null, null, null));
    assertTrue(
        awaitReceived(received, 2), "the other task's report went while the first is under way");
    assertEquals(List.of("vm-a.0 ready=false", "vm-b.0 ready=null"), received);
    answerFirst.countDown();
    assertTrue(awaitReceived(received, 3), "the newer state went once the older was answered");
    assertEquals(List.of("vm-a.0 ready=false", "vm-b.0 ready=null", "vm-a.0 ready=true"), received);
  }

  private static boolean awaitReceived(List<String> received, int count)
      throws InterruptedException {
    for (int i = 0; i < 3000 && received.size() < count; i++) {
      Thread.sleep(10);
    }
    return received.size() >= count;
  }

  private static TaskView view(boolean ready, String since) {
    return new TaskView(
        "vm-a.0", "vm-a", "running", null, null, null, null, null, 7L, ready, since, null);
  }
}
