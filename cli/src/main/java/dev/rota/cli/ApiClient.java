package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
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
 *
 * <p>Calls go over {@link HttpURLConnection}: a command is one or two calls, and the JDK's newer
 * {@link HttpClient} costs a command half a second more in starting its machinery (0.7 s against
 * 0.1 s for one GET in a fresh JVM). It serves PATCH alone, which the older class cannot send.
 */
final class ApiClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** An answer: its status, body and headers (names in lower case). */
  record Reply(int status, byte[] body, Map<String, List<String>> headers) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    java.util.Optional<String> header(String name) {
      List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
      return values == null || values.isEmpty()
          ? java.util.Optional.empty()
          : java.util.Optional.of(values.get(0));
    }
  }

  private final Context context;
  private final ObjectMapper json;

  /** The server and token it calls with. */
  Context context() {
    return context;
  }

  ApiClient(Context context, ObjectMapper json) {
    this.context = context;
    this.json = json;
  }

  JsonNode get(String path) {
    return send("GET", path, null);
  }

  /** The resource at {@code path}; null when there is none (a 404). */
  JsonNode getIfPresent(String path) {
    try {
      return get(path);
    } catch (CliException e) {
      if (e.exitCode() == ExitCodes.NOT_FOUND) {
        return null;
      }
      throw e;
    }
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
    try {
      HttpURLConnection c = open("GET", path, null);
      c.setReadTimeout(0); // a watch waits as long as its server holds it open
      int status = c.getResponseCode();
      if (status >= 400) {
        throw new CliException(ExitCodes.forStatus(status), problem(status, read(c).text()));
      }
      try (java.io.BufferedReader lines =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8))) {
        String l;
        while ((l = lines.readLine()) != null) {
          if (!l.isBlank()) {
            line.accept(json.readTree(l));
          }
        }
      }
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.UNREACHABLE,
          "the watch on " + context.server() + " ended (" + e.getMessage() + ")");
    }
  }

  /**
   * How a followed log's stream ended.
   *
   * @param reached the offset just past the last byte shown: where to follow again from
   * @param ended true when the server ended the stream (the task ended), false when it broke
   */
  record Followed(long reached, boolean ended) {}

  /**
   * A followed log ({@code ?follow=true}): its text to {@code text} as it comes, until the server
   * ends the stream or the connection breaks. A refusal is a {@link CliException} as for any call.
   * Bytes are decoded as they come; a character split between two reads waits for its end, and is
   * not counted as reached until it is shown.
   */
  Followed follow(String path, java.util.function.Consumer<String> text) {
    HttpURLConnection c;
    long from;
    try {
      c = open("GET", path, null);
      c.setReadTimeout(0); // held as long as the task runs
      int status = c.getResponseCode();
      if (status >= 400) {
        throw new CliException(ExitCodes.forStatus(status), problem(status, read(c).text()));
      }
      from =
          Long.parseLong(
              java.util.Objects.requireNonNullElse(c.getHeaderField("Rota-Log-From"), "0"));
    } catch (IOException e) {
      throw unreachable(e);
    }
    java.nio.charset.CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
            .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE);
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16 * 1024);
    java.nio.CharBuffer chars = java.nio.CharBuffer.allocate(16 * 1024);
    long reached = from;
    try (InputStream in = c.getInputStream()) {
      int n;
      while ((n = in.read(bytes.array(), bytes.position(), bytes.remaining())) >= 0) {
        bytes.position(bytes.position() + n);
        bytes.flip();
        int before = bytes.remaining();
        utf8.decode(bytes, chars, false);
        reached += before - bytes.remaining();
        bytes.compact();
        chars.flip();
        if (chars.hasRemaining()) {
          text.accept(chars.toString());
        }
        chars.clear();
      }
      return new Followed(reached, true);
    } catch (IOException e) {
      return new Followed(reached, false);
    }
  }

  /** A plain-text answer (logs), as it came. */
  String text(String path) {
    return exchange("GET", path, null, TIMEOUT).text();
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
    Reply reply = exchange(method, path, body, TIMEOUT);
    String text = reply.text();
    if (text == null || text.isBlank()) {
      return json.nullNode();
    }
    try {
      return json.readTree(text);
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.FAILED,
          method + " " + path + " answered " + reply.status() + " with a body that is not JSON");
    }
  }

  /** A GET whose answer is bytes (a log), with its headers; {@code timeout} for a waiting read. */
  Reply bytes(String path, Duration timeout) {
    return exchange("GET", path, null, timeout);
  }

  private Reply exchange(String method, String path, Object body, Duration timeout) {
    try {
      Reply reply;
      if (method.equals("PATCH")) {
        reply = patch(path, body, timeout);
      } else {
        HttpURLConnection c = open(method, path, body);
        c.setReadTimeout((int) timeout.toMillis());
        reply = read(c);
      }
      if (reply.status() >= 400) {
        throw new CliException(
            ExitCodes.forStatus(reply.status()), problem(reply.status(), reply.text()));
      }
      return reply;
    } catch (IOException e) {
      throw unreachable(e);
    } catch (IllegalArgumentException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "the server address " + context.server() + " is not a URL such as http://127.0.0.1:8080");
    }
  }

  private CliException unreachable(IOException e) {
    return new CliException(
        ExitCodes.UNREACHABLE,
        "cannot reach the Rota server at "
            + context.server()
            + " ("
            + reason(e)
            + "); is it running? set --server or ROTA_SERVER");
  }

  /** A request sent: its body (JSON) written, its answer not yet read. */
  private HttpURLConnection open(String method, String path, Object body) throws IOException {
    URI uri = URI.create(context.server() + path);
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("not an HTTP URL: " + uri);
    }
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
    c.setInstanceFollowRedirects(false);
    // Not the class's default (text/html first), for which the server renders its errors as pages.
    c.setRequestProperty(
        "Accept", "application/json, application/problem+json, application/x-ndjson, text/plain");
    if (context.token() != null && !context.token().isBlank()) {
      c.setRequestProperty("Authorization", "Bearer " + context.token());
    }
    if (body != null) {
      byte[] bytes = json.writeValueAsBytes(body);
      c.setRequestProperty("Content-Type", "application/json");
      c.setDoOutput(true);
      try (java.io.OutputStream out = c.getOutputStream()) {
        out.write(bytes);
      }
    }
    return c;
  }

  private static Reply read(HttpURLConnection c) throws IOException {
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    byte[] body;
    try (InputStream stream = in) {
      body = stream == null ? new byte[0] : stream.readAllBytes();
    }
    Map<String, List<String>> headers = new java.util.HashMap<>();
    c.getHeaderFields()
        .forEach(
            (name, values) -> {
              if (name != null) {
                headers.put(name.toLowerCase(java.util.Locale.ROOT), values);
              }
            });
    return new Reply(status, body, headers);
  }

  private Reply patch(String path, Object body, Duration timeout) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(context.server() + path))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
    if (context.token() != null && !context.token().isBlank()) {
      request.header("Authorization", "Bearer " + context.token());
    }
    try {
      HttpResponse<byte[]> reply =
          HttpClient.newBuilder()
              .connectTimeout(CONNECT_TIMEOUT)
              .build()
              .send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      Map<String, List<String>> headers = new java.util.HashMap<>();
      reply.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v));
      return new Reply(reply.statusCode(), reply.body(), headers);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.FAILED, "interrupted");
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
    if (e instanceof java.net.http.HttpTimeoutException
        || e instanceof java.net.SocketTimeoutException) {
      return "no answer within the timeout";
    }
    return m == null ? e.getClass().getSimpleName() : m;
  }
}
