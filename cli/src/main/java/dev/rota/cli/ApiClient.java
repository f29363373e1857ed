package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Rota's REST API as the CLI calls it: JSON in and out, the token as a bearer, and every failure as
 * a {@link CliException} whose message is one line: a problem+json's {@code detail}, or why the
 * server could not be reached.
 */
final class ApiClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Context context;
  private final ObjectMapper json;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  ApiClient(Context context, ObjectMapper json) {
    this.context = context;
    this.json = json;
  }

  JsonNode get(String path) {
    return send("GET", path, null);
  }

  JsonNode post(String path, Object body) {
    return send("POST", path, body);
  }

  JsonNode put(String path, Object body) {
    return send("PUT", path, body);
  }

  JsonNode patch(String path, Object body) {
    return send("PATCH", path, body);
  }

  JsonNode delete(String path) {
    return send("DELETE", path, null);
  }

  /**
   * A watch's NDJSON lines as they come, each to {@code line}, until the server ends the stream; a
   * refusal (a 410 among them) is a {@link CliException} as for any call.
   */
  void stream(String path, java.util.function.Consumer<JsonNode> line) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(context.server() + path)).GET();
    if (context.token() != null && !context.token().isBlank()) {
      request.header("Authorization", "Bearer " + context.token());
    }
    try {
      HttpResponse<java.util.stream.Stream<String>> reply =
          http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
      if (reply.statusCode() >= 400) {
        String body = reply.body().collect(java.util.stream.Collectors.joining("\n"));
        throw new CliException(
            ExitCodes.forStatus(reply.statusCode()), problem(reply.statusCode(), body));
      }
      try (java.util.stream.Stream<String> lines = reply.body()) {
        lines
            .filter(l -> !l.isBlank())
            .forEach(
                l -> {
                  try {
                    line.accept(json.readTree(l));
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new CliException(
          ExitCodes.UNREACHABLE,
          "the watch on " + context.server() + " ended (" + e.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.FAILED, "interrupted");
    }
  }

  /** A plain-text answer (logs), as it came. */
  String text(String path) {
    HttpResponse<String> reply = exchange("GET", path, null);
    return reply.body();
  }

  /**
   * Every item of a paged list, following {@code nextCursor} to the end, or up to {@code limit}.
   */
  List<JsonNode> list(String path, Map<String, String> query, Integer limit) {
    List<JsonNode> items = new ArrayList<>();
    String cursor = null;
    do {
      Map<String, String> q = new LinkedHashMap<>(query);
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      if (limit != null) {
        q.put("limit", String.valueOf(Math.min(limit - items.size(), 500)));
      }
      JsonNode page = get(path + query(q));
      page.path("items").forEach(items::add);
      JsonNode next = page.path("nextCursor");
      cursor = next.isTextual() ? next.asText() : null;
    } while (cursor != null && (limit == null || items.size() < limit));
    return items;
  }

  static String query(Map<String, String> params) {
    StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
    params.forEach(
        (k, v) -> {
          if (v != null) {
            q.add(k + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8));
          }
        });
    return q.toString();
  }

  static String segment(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private JsonNode send(String method, String path, Object body) {
    HttpResponse<String> reply = exchange(method, path, body);
    String text = reply.body();
    if (text == null || text.isBlank()) {
      return json.nullNode();
    }
    try {
      return json.readTree(text);
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.FAILED,
          method
              + " "
              + path
              + " answered "
              + reply.statusCode()
              + " with a body that is not JSON");
    }
  }

  /** A GET whose answer is bytes (a log), with its headers; {@code timeout} for a waiting read. */
  HttpResponse<byte[]> bytes(String path, java.time.Duration timeout) {
    return exchange(
        "GET",
        path,
        null,
        HttpResponse.BodyHandlers.ofByteArray(),
        b -> new String(b, StandardCharsets.UTF_8),
        timeout);
  }

  private HttpResponse<String> exchange(String method, String path, Object body) {
    return exchange(method, path, body, HttpResponse.BodyHandlers.ofString(), b -> b, TIMEOUT);
  }

  private <T> HttpResponse<T> exchange(
      String method,
      String path,
      Object body,
      HttpResponse.BodyHandler<T> handler,
      java.util.function.Function<T, String> asText,
      java.time.Duration timeout) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(context.server() + path)).timeout(timeout);
    try {
      if (body == null) {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      } else {
        request
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
      }
      if (context.token() != null && !context.token().isBlank()) {
        request.header("Authorization", "Bearer " + context.token());
      }
      HttpResponse<T> reply = http.send(request.build(), handler);
      if (reply.statusCode() >= 400) {
        throw new CliException(
            ExitCodes.forStatus(reply.statusCode()),
            problem(reply.statusCode(), asText.apply(reply.body())));
      }
      return reply;
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.UNREACHABLE,
          "cannot reach the Rota server at "
              + context.server()
              + " ("
              + reason(e)
              + "); is it running? set --server or ROTA_SERVER");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.FAILED, "interrupted");
    } catch (IllegalArgumentException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "the server address " + context.server() + " is not a URL such as http://127.0.0.1:8080");
    }
  }

  /** A problem+json's detail (its title when it has none), on one line; else the status alone. */
  private String problem(int status, String body) {
    String said = null;
    try {
      JsonNode p = json.readTree(body);
      said =
          p.hasNonNull("detail")
              ? p.get("detail").asText()
              : p.hasNonNull("title") ? p.get("title").asText() : null;
    } catch (IOException | RuntimeException e) {
      // not JSON: the status says it
    }
    String line = said == null || said.isBlank() ? "the server answered " + status : said;
    return status + ": " + line.replaceAll("\\s*\\R\\s*", " ").strip();
  }

  private static String reason(IOException e) {
    String m = e.getMessage();
    if (e instanceof java.net.ConnectException) {
      return "connection refused";
    }
    if (e instanceof java.net.http.HttpTimeoutException) {
      return "no answer within the timeout";
    }
    return m == null ? e.getClass().getSimpleName() : m;
  }
}
