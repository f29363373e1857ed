package dev.rota.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for Rota's REST API on loopback: answers each {@code METHOD /path?query} with the
 * replies queued for it (the last one repeats), and records what was asked. The CLI's own tests use
 * it; the CLI against the real server is tested in worker-host.
 */
final class StandInApi implements AutoCloseable {
  record Request(String method, String target, String body, String authorization) {}

  record Reply(int status, String contentType, String body, Map<String, String> headers) {
    Reply(int status, String contentType, String body) {
      this(status, contentType, body, Map.of());
    }

    static Reply json(int status, String body) {
      return new Reply(status, "application/json", body);
    }

    static Reply problem(int status, String detail) {
      return new Reply(
          status,
          "application/problem+json",
          "{\"type\":\"about:blank\",\"title\":\"t\",\"status\":"
              + status
              + ",\"detail\":\""
              + detail
              + "\"}");
    }
  }

  /** A reply header the stand-in does not send: with it, the connection breaks after the body. */
  static final String BREAKS = "Stand-In-Breaks";

  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Deque<Reply>> replies = new ConcurrentHashMap<>();
  private final HttpServer server;

  StandInApi() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        x -> {
          String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          String target =
              x.getRequestURI().getRawPath()
                  + (x.getRequestURI().getRawQuery() == null
                      ? ""
                      : "?" + x.getRequestURI().getRawQuery());
          requests.add(
              new Request(
                  x.getRequestMethod(),
                  target,
                  body,
                  x.getRequestHeaders().getFirst("Authorization")));
          Deque<Reply> queue = replies.get(x.getRequestMethod() + " " + target);
          Reply reply =
              queue == null
                  ? Reply.problem(404, "no stand-in reply for " + target)
                  : queue.size() > 1 ? queue.poll() : queue.peek();
          byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
          x.getResponseHeaders().add("Content-Type", reply.contentType());
          boolean breaks = reply.headers().containsKey(BREAKS);
          reply
              .headers()
              .forEach(
                  (name, value) -> {
                    if (!name.equals(BREAKS)) {
                      x.getResponseHeaders().add(name, value);
                    }
                  });
          // A reply that breaks is chunked and never sends its last chunk: the connection closes.
          x.sendResponseHeaders(reply.status(), breaks ? 0 : bytes.length == 0 ? -1 : bytes.length);
          if (bytes.length > 0) {
            x.getResponseBody().write(bytes);
            x.getResponseBody().flush();
          }
          if (breaks) {
            throw new IOException("the stand-in breaks this connection");
          }
          x.close();
        });
    server.start();
  }

  /** Queues replies for {@code METHOD /path?query}, answered in turn, the last for good. */
  StandInApi on(String request, Reply... answers) {
    replies.put(request, new ArrayDeque<>(List.of(answers)));
    return this;
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  Request last() {
    return requests.get(requests.size() - 1);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
