package dev.rota.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls to the controller's REST API, with this worker's token. */
final class ControllerClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final AgentConfig config;
  private final ObjectMapper json;
  private final HttpClient http;

  ControllerClient(AgentConfig config, ObjectMapper json, HttpClient http) {
    this.config = config;
    this.json = json;
    this.http = http;
  }

  /**
   * A client for the controller {@code config} names. Agents in one process that share a controller
   * (dev mode's) may share one: each client of its own is a selector thread and a pool, and a thousand
   * of them idling took a tenth of two cores in system time.
   */
  static HttpClient httpClient(AgentConfig config) {
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
    if (config.controllerCa() != null) {
      client.sslContext(TrustedCertificates.only(config.controllerCa(), "ROTA_CONTROLLER_CA"));
    }
    return client.build();
  }

  /** The answer's status; the body is not read. */
  int send(String method, String path, Object body) throws IOException, InterruptedException {
    return exchange(method, path, body).statusCode();
  }

  /** The answer, its body not read. */
  HttpResponse<Void> exchange(String method, String path, Object body) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(config.controllerUrl() + path)).timeout(TIMEOUT);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
    }
    if (!config.token().isBlank()) {
      request.header("Authorization", "Bearer " + config.token());
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.discarding());
  }
}
