package dev.rota.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.config.AgentConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An agent that knows several controller hosts talks to the one that answers, and stays with it.
 */
class ControllerClientTest {
  private final AtomicInteger aStatus = new AtomicInteger(503);
  private final AtomicInteger bStatus = new AtomicInteger(204);
  private HttpServer a;
  private HttpServer b;

  @AfterEach
  void stop() {
    if (a != null) {
      a.stop(0);
    }
    if (b != null) {
      b.stop(0);
    }
  }

  private static HttpServer answering(AtomicInteger status) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(status.get(), -1);
          exchange.close();
        });
    server.start();
    return server;
  }

  private static String url(HttpServer server) {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static ControllerClient client(String urls) {
    AgentConfig config =
        AgentConfig.from(
            Map.of("ROTA_CONTROLLER_URL", urls, "ROTA_WORKER_NAME", "w1"), new String[0]);
    return new ControllerClient(config, new ObjectMapper(), ControllerClient.httpClient(config));
  }

  @Test
  void aHostThatIsDownOrCannotServeIsPassedOverAndTheOneThatAnswersIsKept() throws Exception {
    a = answering(aStatus);
    b = answering(bStatus);
    String down = "http://127.0.0.1:" + closedPort();
    ControllerClient controller = client(down + "," + url(a) + "/," + url(b));

    assertEquals(
        204,
        controller.send("PUT", "/v1/workers/w1/heartbeat", Map.of("images", java.util.List.of())));
    assertEquals(
        url(b),
        controller.url(),
        "the first is down and the second answers 503: the third is talked to");

    bStatus.set(503);
    aStatus.set(204);
    assertEquals(204, controller.send("PUT", "/v1/workers/w1/heartbeat", null));
    assertEquals(
        url(a), controller.url(), "from the current host on, in turn, round to the first ones");

    aStatus.set(404);
    assertEquals(
        404,
        controller.send("PUT", "/v1/workers/w1/heartbeat", null),
        "an answer that is not 'cannot serve' is the answer");
    assertEquals(url(a), controller.url());

    aStatus.set(503);
    assertEquals(
        503,
        controller.send("PUT", "/v1/workers/w1/heartbeat", null),
        "none can serve: the last such answer");
    a.stop(0);
    b.stop(0);
    a = null;
    b = null;
    assertThrows(
        IOException.class,
        () -> controller.send("PUT", "/v1/workers/w1/heartbeat", null),
        "none answers");
  }

  @Test
  void theSettingNamesEachHostByItsUrl() {
    assertEquals(
        java.util.List.of("http://a:8080", "https://b:8443"),
        AgentConfig.controllerUrls(" http://a:8080/ , https://b:8443,"));
    AgentConfig.BadSetting bad =
        assertThrows(
            AgentConfig.BadSetting.class, () -> AgentConfig.controllerUrls("http://a:1,b:2"));
    assertEquals(
        "ROTA_CONTROLLER_URL names b:2: each of its URLs must start with http:// or https://",
        bad.getMessage());
  }
}
