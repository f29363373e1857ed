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

/** Raw HTTP against the test server: status, content type and body exactly as a client sees them. */
@Singleton
public class Http {
  private final EmbeddedServer server;
  private final ObjectMapper json;
  private final HttpClient client = HttpClient.newHttpClient();

  public Http(EmbeddedServer server, ObjectMapper json) {
    this.server = server;
    this.json = json;
  }

  public record Reply(int status, String contentType, String body, ObjectMapper json) {
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
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(server.getURL() + path))
            .method(
                method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(
          response.statusCode(),
          response.headers().firstValue("content-type").orElse(""),
          response.body(),
          json);
    } catch (IOException e) {
      throw new AssertionError(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
