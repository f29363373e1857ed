package dev.rota.api;

import io.micronaut.core.type.Argument;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.serde.ObjectMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

/**
 * Raw HTTP against the test server: status, content type and body exactly as a client sees them.
 */
@Singleton
public class Http {
  private final EmbeddedServer server;
  private final ObjectMapper json;
  private final HttpClient client = HttpClient.newHttpClient();

  public Http(EmbeddedServer server, ObjectMapper json) {
    this.server = server;
    this.json = json;
  }

  public record Reply(
      int status,
      String contentType,
      String body,
      ObjectMapper json,
      java.net.http.HttpHeaders headers) {
    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    public Map<String, Object> map() {
      try {
        return json.readValue(body, Argument.mapOf(String.class, Object.class));
      } catch (IOException e) {
        throw new AssertionError("not a JSON object: " + body, e);
      }
    }

    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> items() {
      return (List<Map<String, Object>>) map().get("items");
    }

    public String detail() {
      return (String) map().get("detail");
    }

    public boolean isProblem() {
      return contentType.startsWith("application/problem+json");
    }

    @Override
    public String toString() {
      return status + " " + contentType + " " + body;
    }
  }

  public Reply get(String path) {
    return send("GET", path, null);
  }

  public Reply post(String path, String body) {
    return send("POST", path, body);
  }

  public Reply put(String path, String body) {
    return send("PUT", path, body);
  }

  public Reply patch(String path, String body) {
    return send("PATCH", path, body);
  }

  public Reply delete(String path) {
    return send("DELETE", path, null);
  }

  public Reply send(String method, String path, String body) {
    return send(method, path, body, null);
  }

  public Reply send(String method, String path, String body, String token) {
    return send(method, path, body, token, java.util.Map.of());
  }

  public Reply send(
      String method,
      String path,
      String body,
      String token,
      java.util.Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(server.getURL() + path))
            .timeout(
                java.time.Duration.ofSeconds(
                    60)) // an answer that never ends (a watch) fails the test, not hangs it
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    headers.forEach(request::header);
    try {
      HttpResponse<String> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(
          response.statusCode(),
          response.headers().firstValue("content-type").orElse(""),
          response.body(),
          json,
          response.headers());
    } catch (IOException e) {
      throw new AssertionError(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** A stream of NDJSON lines (a watch), read as they come; closing it ends the request. */
  public final class Lines implements AutoCloseable {
    private final java.util.concurrent.BlockingQueue<String> lines =
        new java.util.concurrent.LinkedBlockingQueue<>();
    private final java.util.concurrent.CompletableFuture<
            HttpResponse<java.util.stream.Stream<String>>>
        response;
    public final int status;
    public final String contentType;

    Lines(String path) throws Exception {
      response =
          client.sendAsync(
              HttpRequest.newBuilder(URI.create(server.getURL() + path)).GET().build(),
              HttpResponse.BodyHandlers.ofLines());
      HttpResponse<java.util.stream.Stream<String>> r =
          response.get(30, java.util.concurrent.TimeUnit.SECONDS);
      status = r.statusCode();
      contentType = r.headers().firstValue("Content-Type").orElse("");
      Thread reader = new Thread(() -> r.body().forEach(lines::add), "lines " + path);
      reader.setDaemon(true);
      reader.start();
    }

    /** The next line as JSON; fails when none comes within 30 s. */
    public Map<String, Object> next() throws Exception {
      String line = lines.poll(30, java.util.concurrent.TimeUnit.SECONDS);
      if (line == null) {
        throw new AssertionError("no line within 30 s");
      }
      return json.readValue(line, Argument.mapOf(String.class, Object.class));
    }

    /** The next line that is not a bookmark. */
    public Map<String, Object> nextChange() throws Exception {
      Map<String, Object> line = next();
      return "bookmark".equals(line.get("type")) ? nextChange() : line;
    }

    @Override
    public void close() {
      response.thenAccept(r -> r.body().close());
    }
  }

  public Lines lines(String path) throws Exception {
    return new Lines(path);
  }
}
