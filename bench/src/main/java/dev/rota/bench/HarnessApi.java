package dev.rota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * The harnesses' calls to Rota's REST API, as a well-behaved client makes them: with a token when
 * auth is on, and a submission refused for now (429, 503) sent again after its Retry-After.
 */
final class HarnessApi {
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final ObjectMapper json = new ObjectMapper();
  private final String token;

  /** Submissions answered 429 (a host's bound on requests in flight) or 503, and sent again. */
  final AtomicInteger refusedForNow = new AtomicInteger();

  /** A client with this bearer token, or none for a host with auth off. */
  HarnessApi(String token) {
    this.token = token;
  }

  private HttpRequest.Builder request(String url) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }

  HttpResponse<String> post(String url, String body) throws IOException, InterruptedException {
    while (true) {
      HttpResponse<String> answer =
          http.send(
              request(url)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() != 429 && answer.statusCode() != 503) {
        return answer;
      }
      refusedForNow.incrementAndGet();
      Thread.sleep(1000L * answer.headers().firstValueAsLong("Retry-After").orElse(1));
    }
  }

  HttpResponse<String> delete(String url) throws IOException, InterruptedException {
    return http.send(request(url).DELETE().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The harnesses' VMs: synthetic, one CPU and 256 MiB each, restarted when they fail. */
  private static final String VM_SPEC =
      "\"runtime\":\"synthetic\",\"resources\":{\"cpu\":1,\"memory\":256},"
          + "\"restartPolicy\":\"OnFailure\"";

  /**
   * Sends a burst of {@code vms} VMs from {@code threads} clients: one set {@code load} of that
   * many replicas when {@code batch} is 0, else {@code load-0}, {@code load-1}, … in requests of
   * {@code batch} (each its own POST /v1/vms when 1), request {@code n} to {@code api.apply(n)}.
   * Throws unless each was answered 201, with what the host said.
   */
  void submit(int vms, int batch, IntFunction<String> api, int threads) throws Exception {
    List<Callable<HttpResponse<String>>> posts = new ArrayList<>();
    if (batch == 0) {
      String body = "{\"name\":\"load\",\"replicas\":" + vms + ",\"template\":{" + VM_SPEC + "}}";
      posts.add(() -> post(api.apply(0) + "/v1/vm-sets", body));
    }
    for (int first = 0, n = 0; batch > 0 && first < vms; first += batch, n++) {
      List<String> items = new ArrayList<>();
      for (int i = first; i < Math.min(vms, first + batch); i++) {
        items.add("{\"name\":\"load-" + i + "\"," + VM_SPEC + "}");
      }
      String to = api.apply(n);
      posts.add(
          batch == 1
              ? () -> post(to + "/v1/vms", items.get(0))
              : () -> post(to + "/v1/vms/batch", "{\"items\":[" + String.join(",", items) + "]}"));
    }
    answeredAll(posts, 201, "a submit", threads);
  }

  /** Deletes what {@link #submit} made, through {@code api}: the set, or each VM. */
  void deleteSubmitted(int vms, int batch, String api, int threads) throws Exception {
    List<Callable<HttpResponse<String>>> deletes = new ArrayList<>();
    if (batch == 0) {
      deletes.add(() -> delete(api + "/v1/vm-sets/load"));
    }
    for (int i = 0; batch > 0 && i < vms; i++) {
      String name = "load-" + i;
      deletes.add(() -> delete(api + "/v1/vms/" + name));
    }
    answeredAll(deletes, 2, "a delete", threads);
  }

  /**
   * Makes the calls from {@code threads} clients; throws unless each answered {@code status} (a
   * single digit: any status of that class).
   */
  private static void answeredAll(
      List<Callable<HttpResponse<String>>> calls, int status, String what, int threads)
      throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(threads);
    try {
      for (Future<HttpResponse<String>> f : clients.invokeAll(calls)) {
        int got = f.get().statusCode();
        if (status < 10 ? got / 100 != status : got != status) {
          // What the host said, for the log: a 409 at the largest size was once left unexplained
          // for want of it.
          throw new IllegalStateException(what + " answered " + got + ": " + f.get().body());
        }
      }
    } finally {
      clients.shutdown();
    }
  }

  /** The answer's status, or -1 when the host did not answer. */
  int status(String url) {
    try {
      return http.send(request(url).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  String text(String url) throws IOException, InterruptedException {
    return http.send(request(url).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> get(String url) throws IOException, InterruptedException {
    return json.readValue(text(url), Map.class);
  }

  /** A count from {@code GET /v1/cluster} ({@code vms}/{@code running}); -1 when unanswered. */
  @SuppressWarnings("unchecked")
  long count(String api, String kind, String key) {
    try {
      Map<String, Object> counts = (Map<String, Object>) get(api + "/v1/cluster").get(kind);
      Object n = counts.get(key);
      return n == null ? 0 : ((Number) n).longValue();
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * The VMs by status, from {@code GET /v1/cluster}; empty when unanswered (a busy host's 503), not
   * an empty map, which would read as no VMs at all.
   */
  @SuppressWarnings("unchecked")
  java.util.Optional<Map<String, Number>> vmCounts(String api) {
    try {
      return java.util.Optional.ofNullable(
          (Map<String, Number>) get(api + "/v1/cluster").get("vms"));
    } catch (Exception e) {
      return java.util.Optional.empty();
    }
  }

  /** Every item of a paged list ({@code /v1/vms?limit=1000}, its cursors followed). */
  @SuppressWarnings("unchecked")
  List<Map<String, Object>> all(String api, String path) throws Exception {
    List<Map<String, Object>> items = new java.util.ArrayList<>();
    String cursor = null;
    do {
      Map<String, Object> page =
          get(
              api
                  + path
                  + (path.contains("?") ? "&" : "?")
                  + "limit=1000"
                  + (cursor == null ? "" : "&cursor=" + cursor));
      items.addAll((List<Map<String, Object>>) page.get("items"));
      cursor = (String) page.get("nextCursor");
    } while (cursor != null);
    return items;
  }

  String json(Object value) throws IOException {
    return json.writerWithDefaultPrettyPrinter().writeValueAsString(value);
  }

  /**
   * How often a harness asks {@code GET /v1/cluster} whether all run: polled every 200 ms, the
   * figure of a burst that takes a second came out 100 ms late on average. The host answers each
   * ask (a Temporal query among it), so asking often counts against it, not for it.
   */
  static final Duration ALL_RUNNING_POLL = Duration.ofMillis(50);

  /** Polls {@code done} 5 times a second: the API is polled, and a poll costs the host. */
  static void await(String what, BooleanSupplier done, Duration patience)
      throws InterruptedException {
    await(what, done, patience, Duration.ofMillis(200));
  }

  /**
   * Polls {@code done} every {@code every}. A host's {@code /metrics} reads every worker's and VM's
   * row to refresh its gauges: polled 5 times a second, at 10,000 VMs that took a third of the
   * host's CPU.
   */
  static void await(String what, BooleanSupplier done, Duration patience, Duration every)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("gave up waiting: " + what);
      }
      Thread.sleep(every.toMillis());
    }
  }
}
