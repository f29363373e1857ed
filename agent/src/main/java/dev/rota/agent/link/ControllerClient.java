package dev.rota.agent.link;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.config.AgentConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls to the controller's REST API, with this worker's token, to one of its hosts: the one that
 * last answered, and the next ones in turn when it does not answer (no connection, or none within
 * the timeout) or answers that it cannot serve now (502, 503, 504). Any host serves any call: they
 * share the database.
 */
public final class ControllerClient {
  private static final Logger log = LoggerFactory.getLogger(ControllerClient.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final AgentConfig config;
  private final ObjectMapper json;
  private final HttpClient http;
  private final List<String> urls;

  /** Which build this agent is, so that the controller shows it with the worker. */
  private final String userAgent = dev.rota.agentapi.RotaBuild.current().userAgent("rota-agent");

  /** The host talked to now: the last one that answered. */
  private volatile int current;

  public ControllerClient(AgentConfig config, ObjectMapper json, HttpClient http) {
    this.config = config;
    this.json = json;
    this.http = http;
    this.urls = config.controllerUrls();
  }

  /** The host it talks to now. */
  String url() {
    return urls.get(current);
  }

  /**
   * A client for the controller {@code config} names. Agents in one process that share a controller
   * (dev mode's) may share one: each client of its own is a selector thread and a pool, and a
   * thousand of them idling took a tenth of two cores in system time.
   */
  public static HttpClient httpClient(AgentConfig config) {
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
    if (config.controllerCa() != null) {
      client.sslContext(TrustedCertificates.only(config.controllerCa(), "ROTA_CONTROLLER_CA"));
    }
    return client.build();
  }

  /** The answer's status. */
  int send(String method, String path, Object body) throws IOException, InterruptedException {
    return exchange(method, path, body).statusCode();
  }

  /**
   * The answer, with its body as text: the first host's, in turn from the current one, that can
   * serve it.
   */
  HttpResponse<String> exchange(String method, String path, Object body)
      throws IOException, InterruptedException {
    byte[] bytes = body == null ? null : json.writeValueAsBytes(body);
    int first = current;
    HttpResponse<String> unavailable = null;
    IOException unreachable = null;
    for (int i = 0; i < urls.size(); i++) {
      int at = (first + i) % urls.size();
      try {
        HttpResponse<String> answer =
            http.send(
                request(urls.get(at), method, path, bytes), HttpResponse.BodyHandlers.ofString());
        if (urls.size() > 1 && cannotServe(answer.statusCode())) {
          unavailable = answer;
          continue;
        }
        if (at != current) {
          log.info(
              "controller at {} answers; the agent talks to it now (was {})",
              urls.get(at),
              urls.get(current));
          current = at;
        }
        return answer;
      } catch (IOException e) {
        unreachable = e;
      }
    }
    if (unavailable != null) {
      return unavailable;
    }
    throw unreachable;
  }

  private static boolean cannotServe(int status) {
    return status == 502 || status == 503 || status == 504;
  }

  private HttpRequest request(String url, String method, String path, byte[] body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(TIMEOUT)
            .header("User-Agent", userAgent);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
    }
    if (!config.token().isBlank()) {
      request.header("Authorization", "Bearer " + config.token());
    }
    return request.build();
  }
}
