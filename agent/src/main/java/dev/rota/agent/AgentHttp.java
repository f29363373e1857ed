package dev.rota.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agentapi.TaskSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * The agent API (docs/agent.md): {@code GET /healthz}, {@code GET /v1/tasks}, {@code PUT|DELETE
 * /v1/tasks/{id}}.
 */
final class AgentHttp {
  static final int MAX_BODY = 1024 * 1024;
  static final int LOG_TAIL = 64 * 1024;
  static final String NODELAY = "sun.net.httpserver.nodelay";

  private final HttpServer server;
  private final TaskTable tasks;
  private final ObjectMapper json;

  private final byte[] secret;

  /** With {@code tls}, HTTPS; without, plain HTTP. */
  AgentHttp(
      String host,
      int port,
      TaskTable tasks,
      ObjectMapper json,
      ExecutorService executor,
      String secret,
      javax.net.ssl.SSLContext tls)
      throws IOException {
    // The JDK's server leaves Nagle's algorithm on: each answer waited for the caller's delayed
    // ACK, 40 ms a call on Linux (a probe is two calls), where with it off a call takes 2 ms. The
    // server reads this once, when the process makes its first one.
    System.setProperty(NODELAY, "true");
    if (tls == null) {
      this.server = HttpServer.create(new InetSocketAddress(host, port), 64);
    } else {
      com.sun.net.httpserver.HttpsServer https =
          com.sun.net.httpserver.HttpsServer.create(new InetSocketAddress(host, port), 64);
      https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
      this.server = https;
    }
    this.tasks = tasks;
    this.json = json;
    this.secret = ("Bearer " + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    server.setExecutor(executor);
    server.createContext("/healthz", this::healthz);
    server.createContext("/v1/tasks", this::tasks);
  }

  int port() {
    return server.getAddress().getPort();
  }

  void start() {
    server.start();
  }

  void stop() {
    server.stop(0);
  }

  private void healthz(HttpExchange x) throws IOException {
    send(x, 200, Map.of("status", "ready"));
  }

  /** Only the controller, which holds this agent's secret, may see or change its tasks. */
  private boolean authorized(HttpExchange x) {
    String given = x.getRequestHeaders().getFirst("Authorization");
    return given != null
        && java.security.MessageDigest.isEqual(
            given.getBytes(java.nio.charset.StandardCharsets.UTF_8), secret);
  }

  private void tasks(HttpExchange x) throws IOException {
    try {
      if (!authorized(x)) {
        problem(x, 401, "the task API needs this agent's secret as a bearer token");
        return;
      }
      String path = x.getRequestURI().getPath();
      String method = x.getRequestMethod();
      if (path.equals("/v1/tasks") || path.equals("/v1/tasks/")) {
        if (!method.equals("GET")) {
          problem(x, 405, "use GET on /v1/tasks");
          return;
        }
        send(x, 200, tasks.list());
        return;
      }
      String id = path.substring("/v1/tasks/".length());
      if (id.endsWith("/logs") && method.equals("GET")) {
        logs(x, id.substring(0, id.length() - "/logs".length()));
        return;
      }
      if (!TaskTable.TASK_ID.matcher(id).matches()) {
        problem(x, 400, "task id " + id + " is not <vm>.<restartCount>");
        return;
      }
      switch (method) {
        case "PUT" -> {
          byte[] body = read(x.getRequestBody());
          if (body == null) {
            problem(x, 413, "body larger than " + MAX_BODY + " bytes");
            return;
          }
          TaskSpec spec;
          try {
            spec = json.readValue(body, TaskSpec.class);
          } catch (IOException e) {
            problem(
                x,
                400,
                "body is not a task spec: "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            return;
          }
          boolean created = tasks.put(id, spec);
          send(
              x,
              created ? 201 : 200,
              tasks.list().stream().filter(t -> t.id().equals(id)).findFirst().orElse(null));
        }
        case "DELETE" -> {
          tasks.remove(id);
          x.sendResponseHeaders(204, -1);
        }
        default -> problem(x, 405, "use PUT or DELETE on /v1/tasks/{id}");
      }
    } catch (IllegalArgumentException e) {
      problem(x, 400, e.getMessage());
    } finally {
      x.close();
    }
  }

  /** The tail of a task's stdout ({@code ?stream=stderr} for stderr), as plain text. */
  private void logs(HttpExchange x, String id) throws IOException {
    if (!TaskTable.TASK_ID.matcher(id).matches()) {
      problem(x, 400, "task id " + id + " is not <vm>.<restartCount>");
      return;
    }
    String query = x.getRequestURI().getQuery();
    String stream = query != null && query.contains("stream=stderr") ? "stderr" : "stdout";
    byte[] tail = tasks.logTail(id, stream, LOG_TAIL);
    if (tail == null) {
      problem(x, 404, "no task " + id + " here");
      return;
    }
    x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    x.sendResponseHeaders(200, tail.length == 0 ? -1 : tail.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(tail);
    }
  }

  /**
   * Reads what is left of the request's body (up to {@link #MAX_BODY}) before an early answer: the
   * server closes a connection whose request it did not read, and a close with unread bytes resets
   * the connection, which can discard the answer before the caller reads it (a refused PUT then
   * failed with "header parser received no bytes" instead of its 401).
   */
  private static void drain(HttpExchange x) throws IOException {
    InputStream in = x.getRequestBody();
    long left = MAX_BODY;
    byte[] buffer = new byte[8192];
    int n;
    while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
      left -= n;
    }
  }

  private static byte[] read(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    return body.length > MAX_BODY ? null : body;
  }

  private void problem(HttpExchange x, int status, String detail) throws IOException {
    drain(x);
    byte[] body =
        json.writeValueAsBytes(
            Map.of(
                "type", "about:blank", "status", status, "title", title(status), "detail", detail));
    x.getResponseHeaders().set("Content-Type", "application/problem+json");
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private void send(HttpExchange x, int status, Object value) throws IOException {
    byte[] body = json.writeValueAsBytes(value);
    x.getResponseHeaders().set("Content-Type", "application/json");
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private static String title(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 413 -> "Request Entity Too Large";
      default -> "Error";
    };
  }
}
