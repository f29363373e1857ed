package dev.rota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rota.host.HostMode;
import dev.rota.host.RotaHost;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real VMs through the whole stack, on one worker: submit-to-guest-running (the guest's init
 * printing its marker on the serial console, read through the API's logs call) for one VM and for a
 * burst, a VM with a persistent disk booted cold, suspended and resumed, and moved live to a second
 * worker by a drain, each to its guest's next word, and the image cache's fetch rate over loopback
 * HTTP. One dev host with two agents offering qemu, the second paused but for the live move; the
 * test guest of {@code .ci/qemu guest}, its disk served over HTTP (fetched once for all). Not a
 * test: it prints its figures.
 *
 * <pre>
 * java -cp bench/target/rota-bench.jar dev.rota.bench.VmBootBench $(.ci/qemu guest) [BURST=20] [FETCH_MIB=1024]
 * </pre>
 */
public final class VmBootBench {
  private static final Duration PATIENCE = Duration.ofMinutes(15);
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private String api;

  public static void main(String[] args) throws Exception {
    try {
      new VmBootBench()
          .run(
              Path.of(args[0]),
              args.length > 1 ? Integer.parseInt(args[1]) : 20,
              args.length > 2 ? Integer.parseInt(args[2]) : 1024);
      System.exit(0);
    } catch (Exception | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  private void run(Path guest, int burst, int fetchMib) throws Exception {
    Path data = Files.createTempDirectory("rota-vm-bench");
    Path big = data.resolve("big.raw");
    byte[] chunk = new byte[1 << 20];
    new java.util.Random(1).nextBytes(chunk);
    try (OutputStream out = Files.newOutputStream(big)) {
      for (int i = 0; i < fetchMib; i++) {
        out.write(chunk);
      }
    }
    AtomicInteger diskRequests = new AtomicInteger();
    HttpServer images = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    serve(images, "/disk.qcow2", guest.resolve("disk.qcow2"), diskRequests);
    serve(images, "/big.raw", big, new AtomicInteger());
    images.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    images.start();
    String base = "http://127.0.0.1:" + images.getAddress().getPort();
    int port = freePort();
    Map<String, Object> props = new HashMap<>();
    props.put("micronaut.server.port", port);
    props.put("rota.temporal.port", freePort());
    props.put("rota.temporal.dev-server", "embedded");
    props.put("rota.data-dir", data.resolve("host").toString());
    // Two agents: the second takes no VMs (paused) but for the live move, which drains the first.
    props.put("rota.dev.agents", 2);
    props.put("rota.dev.agent-runtimes", "qemu");
    // Room for the whole burst on the one worker: its guests share the machine's cores.
    props.put(
        "rota.dev.agent-resources",
        "cpu=" + Math.max(2, burst) + ",memory=" + Math.max(4096, burst * 256));
    props.put("rota.vms.workflow-start-delay", "0s");
    api = "http://127.0.0.1:" + port;
    Map<String, Object> figures = new LinkedHashMap<>();
    try (RotaHost host = RotaHost.start(HostMode.DEV, props)) {
      await("both agents ready", () -> get("/v1/cluster").replace(" ", "").contains("\"ready\":2"));
      paused("dev-2", true);
      String image = base + "/disk.qcow2";
      figures.put("oneVm", boot(List.of("one"), image, "one, cold image cache"));
      figures.put("oneVmWarm", boot(List.of("warm"), image, "one, image cached"));
      figures.put("suspendResume", suspendResume(image));
      figures.put("liveMove", liveMove(image));
      figures.put("warmPool", warmPool(image));
      figures.put("suspendedPool", suspendedPool(image));
      List<String> names = new ArrayList<>();
      for (int i = 0; i < burst; i++) {
        names.add("burst-" + i);
      }
      figures.put("burst", boot(names, image, "burst of " + burst));
      figures.put("diskFetches", diskRequests.get());
      figures.put("fetch", fetch(base + "/big.raw", fetchMib));
    } finally {
      images.stop(0);
      deleteRecursively(data);
    }
    System.out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(figures));
  }

  /**
   * Submits the VMs at once, each running until stopped; the times from submission to its guest's
   * marker.
   */
  private Map<String, Object> boot(List<String> names, String image, String what) throws Exception {
    Instant start = Instant.now();
    for (String name : names) {
      String body =
          "{\"name\":\""
              + name
              + "\",\"runtime\":\"qemu\",\"image\":\""
              + image
              + "\",\"resources\":{\"cpu\":1,\"memory\":128},"
              + "\"guest\":{\"userData\":\"#cloud-config\\n# rota.test=run\\n\"}}";
      HttpResponse<String> r = send("POST", "/v1/vms", body);
      if (r.statusCode() != 201) {
        throw new IllegalStateException("submit answered " + r.statusCode() + ": " + r.body());
      }
    }
    Map<String, Double> running = new HashMap<>();
    Map<String, Double> guestUp = new HashMap<>();
    await(
        what + ": every guest up",
        () -> {
          for (String name : names) {
            double now = Duration.between(start, Instant.now()).toMillis() / 1000.0;
            if (!running.containsKey(name)
                && get("/v1/vms/" + name).contains("\"status\":\"running\"")) {
              running.put(name, now);
            }
            if (!guestUp.containsKey(name)
                && send("GET", "/v1/vms/" + name + "/logs", null)
                    .body()
                    .contains("ROTA-GUEST-UP")) {
              guestUp.put(name, now);
            }
          }
          return guestUp.size() == names.size();
        });
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("vms", names.size());
    r.put("toRunningP50Seconds", percentile(running, 50));
    r.put("toGuestUpP50Seconds", percentile(guestUp, 50));
    r.put("toGuestUpMaxSeconds", percentile(guestUp, 100));
    System.out.printf(
        "%s: running (QEMU started) p50 %.2f s; guest up p50 %.2f s, last %.2f s%n",
        what,
        r.get("toRunningP50Seconds"),
        r.get("toGuestUpP50Seconds"),
        r.get("toGuestUpMaxSeconds"));
    for (String name : names) {
      send("DELETE", "/v1/vms/" + name, null);
    }
    await(
        what + ": deleted",
        () ->
            names.stream()
                .allMatch(
                    n -> {
                      try {
                        return send("GET", "/v1/vms/" + n, null).statusCode() == 404;
                      } catch (Exception e) {
                        return false;
                      }
                    }));
    return r;
  }

  /**
   * One VM with a persistent disk whose guest says a line every 0.2 s: submit to its first line
   * (cold), suspend to {@code suspended}, and start to its first line after the resume.
   */
  private Map<String, Object> suspendResume(String image) throws Exception {
    Instant submitted = Instant.now();
    devBox("box", image);
    double cold = seconds(submitted);
    Instant suspending = Instant.now();
    send("POST", "/v1/vms/box/suspend", null);
    await("box suspended", () -> get("/v1/vms/box").contains("\"status\":\"suspended\""));
    double suspend = seconds(suspending);
    String said =
        String.valueOf(json.readValue(get("/v1/vms/box"), Map.class).get("statusMessage"));
    Instant resuming = Instant.now();
    send("POST", "/v1/vms/box/start", null);
    await(
        "box ticks again",
        () ->
            get("/v1/vms/box").contains("\"status\":\"running\"")
                && get("/v1/vms/box/logs").contains("ROTA-GUEST-STARTUP tick"));
    double resume = seconds(resuming);
    boolean booted = get("/v1/vms/box/logs").contains("ROTA-GUEST-UP");
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("coldBootToGuestSeconds", cold);
    r.put("suspendSeconds", suspend);
    r.put("resumeToGuestSeconds", resume);
    r.put("suspended", said);
    r.put("bootedAgain", booted);
    System.out.printf(
        "a dev box (256 MiB, persistent disk): cold boot to its guest's first word %.2f s;"
            + " suspend %.2f s (%s); resume to its guest's next word %.2f s%s%n",
        cold, suspend, said, resume, booted ? " (it booted again!)" : "");
    send("DELETE", "/v1/vms/box", null);
    await("box deleted", () -> send("GET", "/v1/vms/box", null).statusCode() == 404);
    return r;
  }

  /**
   * The same dev box on dev-1, moved live to dev-2 by a drain of dev-1: drain to its task there
   * running, and drain to its guest's next line read there. dev-1 takes VMs again afterwards, dev-2
   * none.
   */
  private Map<String, Object> liveMove(String image) throws Exception {
    devBox("mover", image);
    paused("dev-2", false);
    Instant draining = Instant.now();
    send("POST", "/v1/workers/dev-1/drain", null);
    await(
        "mover running on dev-2",
        () ->
            get("/v1/vms/mover").replace(" ", "").contains("\"worker\":\"dev-2\"")
                && get("/v1/vms/mover").contains("\"status\":\"running\""));
    double running = seconds(draining);
    await(
        "mover ticks on dev-2",
        () -> get("/v1/vms/mover/logs").contains("ROTA-GUEST-STARTUP tick"));
    double ticking = seconds(draining);
    boolean booted = get("/v1/vms/mover/logs").contains("ROTA-GUEST-UP");
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("drainToRunningThereSeconds", running);
    r.put("drainToGuestThereSeconds", ticking);
    r.put("bootedAgain", booted);
    System.out.printf(
        "the dev box moved live by a drain: running on the other worker %.2f s after it;"
            + " its guest's next word read there %.2f s after it%s%n",
        running, ticking, booted ? " (it booted again!)" : "");
    send("DELETE", "/v1/vms/mover", null);
    await("mover deleted", () -> send("GET", "/v1/vms/mover", null).statusCode() == 404);
    paused("dev-1", false);
    paused("dev-2", true);
    return r;
  }

  /**
   * A pool keeping one guest booted (the test guest, 128 MiB): once it is ready, a claim's answer
   * (the VM running under the claimed name) and its guest's boot line read through that name.
   */
  private Map<String, Object> warmPool(String image) throws Exception {
    String pool =
        "{\"name\":\"bench-pool\",\"minReady\":1,\"max\":2,\"template\":{\"runtime\":\"qemu\","
            + "\"image\":\""
            + image
            + "\",\"resources\":{\"cpu\":1,\"memory\":128},"
            + "\"guest\":{\"userData\":\"#cloud-config\\n# rota.test=run\\n\"}}}";
    return claim(
        pool,
        "bench-pool",
        () ->
            get("/v1/pools/bench-pool").replace(" ", "").contains("\"ready\":1")
                && send("GET", "/v1/vms/bench-pool-0/logs", null).body().contains("ROTA-GUEST-UP"),
        "claimed",
        "\"status\":\"running\"",
        "ROTA-GUEST-UP",
        "claimAnsweredRunningSeconds",
        "a claim from a warm pool: answered, running, %.3f s; its guest's boot line read through its"
            + " new name %.3f s after the claim%n");
  }

  /**
   * A pool keeping one dev box suspended (256 MiB, a persistent disk, a guest that says a line
   * every 0.2 s, suspended once its guest agent answers): a claim's answer (the VM pending, to
   * resume) and its guest's next line read through the claimed name.
   */
  private Map<String, Object> suspendedPool(String image) throws Exception {
    String pool =
        "{\"name\":\"bench-sleepers\",\"minReady\":1,\"max\":1,\"standby\":\"suspended\","
            + "\"template\":{\"runtime\":\"qemu\",\"image\":\""
            + image
            + "\",\"resources\":{\"cpu\":1,\"memory\":256},\"disk\":{\"persistent\":true},"
            + "\"readiness\":{\"guestAgent\":true,\"period\":\"1s\"},"
            + "\"guest\":{\"userData\":\"#!/bin/sh\\nwhile true; do echo tick; sleep 0.2; done\\n\"}}}";
    return claim(
        pool,
        "bench-sleepers",
        () -> get("/v1/pools/bench-sleepers").replace(" ", "").contains("\"ready\":1"),
        "woken",
        "",
        "tick",
        "claimAnsweredSeconds",
        "a claim from a suspended pool: answered %.3f s; its guest's next line read through its new"
            + " name %.3f s after the claim%n");
  }

  /**
   * Creates the pool {@code body} names {@code pool}, waits until it is {@code stocked}, claims
   * {@code vm} from it (the answer a 201 that says {@code answer}) and waits until its guest's log
   * says {@code line}; then deletes both. The claim's answer (as {@code answeredKey}) and the line
   * ({@code claimToGuestSeconds}), in seconds after the claim, also printed as {@code says} puts
   * them.
   */
  private Map<String, Object> claim(
      String body,
      String pool,
      Check stocked,
      String vm,
      String answer,
      String line,
      String answeredKey,
      String says)
      throws Exception {
    HttpResponse<String> created = send("POST", "/v1/pools", body);
    if (created.statusCode() != 201) {
      throw new IllegalStateException(
          "pool answered " + created.statusCode() + ": " + created.body());
    }
    await("the pool's " + pool + " stocked", stocked);
    Instant claiming = Instant.now();
    HttpResponse<String> claimed =
        send("POST", "/v1/vms", "{\"name\":\"" + vm + "\",\"fromPool\":\"" + pool + "\"}");
    double answered = seconds(claiming);
    if (claimed.statusCode() != 201 || !claimed.body().contains(answer)) {
      throw new IllegalStateException(
          "claim answered " + claimed.statusCode() + ": " + claimed.body());
    }
    await(
        "the claimed guest's line " + line,
        () -> send("GET", "/v1/vms/" + vm + "/logs", null).body().contains(line));
    double guest = seconds(claiming);
    send("DELETE", "/v1/pools/" + pool, null);
    send("DELETE", "/v1/vms/" + vm, null);
    await(
        "pool and claimed VM deleted",
        () ->
            send("GET", "/v1/vms/" + vm, null).statusCode() == 404
                && send("GET", "/v1/pools/" + pool, null).statusCode() == 404);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put(answeredKey, answered);
    r.put("claimToGuestSeconds", guest);
    System.out.printf(says, answered, guest);
    return r;
  }

  /**
   * Submits a dev box: 256 MiB, a persistent disk, a guest that says a line every 0.2 s; returns
   * once its first line is read.
   */
  private void devBox(String name, String image) throws Exception {
    String ticks = "#!/bin/sh\\nwhile true; do echo tick; sleep 0.2; done\\n";
    HttpResponse<String> made =
        send(
            "POST",
            "/v1/vms",
            "{\"name\":\""
                + name
                + "\",\"runtime\":\"qemu\",\"image\":\""
                + image
                + "\",\"resources\":{\"cpu\":1,\"memory\":256},\"disk\":{\"persistent\":true},"
                + "\"guest\":{\"userData\":\""
                + ticks
                + "\"}}");
    if (made.statusCode() != 201) {
      throw new IllegalStateException("submit answered " + made.statusCode() + ": " + made.body());
    }
    await(
        name + " ticks",
        () -> get("/v1/vms/" + name + "/logs").contains("ROTA-GUEST-STARTUP tick"));
  }

  /** Pauses {@code worker}, or lets it take VMs again (which ends a drain). */
  private void paused(String worker, boolean paused) throws Exception {
    HttpResponse<String> r =
        send("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":" + paused + "}");
    if (r.statusCode() != 200) {
      throw new IllegalStateException("pausing answered " + r.statusCode() + ": " + r.body());
    }
  }

  private static double seconds(Instant since) {
    return Duration.between(since, Instant.now()).toMillis() / 1000.0;
  }

  /**
   * A VM whose image is {@code mib} MiB of noise: its fetch's rate, from its first progress event
   * to its last.
   */
  private Map<String, Object> fetch(String image, int mib) throws Exception {
    send(
        "POST",
        "/v1/vms",
        "{\"name\":\"fetch\",\"runtime\":\"qemu\",\"image\":\""
            + image
            + "\",\"resources\":{\"cpu\":1,\"memory\":64}}");
    await("the fetch done", () -> get("/v1/vms/fetch/events?limit=100").contains("pulling 100%"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> events =
        (List<Map<String, Object>>)
            json.readValue(get("/v1/vms/fetch/events?limit=100"), Map.class).get("items");
    List<Instant> pulling =
        events.stream()
            .filter(e -> String.valueOf(e.get("message")).startsWith("pulling"))
            .map(e -> Instant.parse((String) e.get("time")))
            .toList();
    double seconds =
        Duration.between(pulling.get(0), pulling.get(pulling.size() - 1)).toMillis() / 1000.0;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("mib", mib);
    r.put("seconds", seconds);
    r.put(
        "mibPerSecond",
        Math.round(mib * 0.9 / Math.max(0.001, seconds))); // the first event is at 10%
    System.out.printf(
        "fetch of %d MiB over loopback HTTP: %.1f MiB/s%n",
        mib, (double) (long) r.get("mibPerSecond"));
    send("DELETE", "/v1/vms/fetch", null);
    return r;
  }

  private static double percentile(Map<String, Double> times, int p) {
    List<Double> sorted = new ArrayList<>(times.values());
    Collections.sort(sorted);
    int i = Math.max(0, (int) Math.ceil(p / 100.0 * sorted.size()) - 1);
    return sorted.get(i);
  }

  private static void serve(HttpServer server, String path, Path file, AtomicInteger requests) {
    server.createContext(
        path,
        x -> {
          requests.incrementAndGet();
          x.sendResponseHeaders(200, Files.size(file));
          try (OutputStream out = x.getResponseBody()) {
            Files.copy(file, out);
          }
        });
  }

  private String get(String path) throws IOException, InterruptedException {
    return send("GET", path, null).body();
  }

  private HttpResponse<String> send(String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void await(String what, Check check) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + PATIENCE + ": " + what);
      }
      Thread.sleep(100);
    }
  }

  private static int freePort() {
    return dev.rota.host.LoopbackPorts.free();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
