package dev.rota.agent;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.testing.TestGuest;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent process killed with SIGKILL while its VM runs, then started again: the VM goes on, and
 * the new agent adopts it (the same QEMU process, not a second one), and can still stop it.
 */
class QemuAgentRestartTest {
  private static final String SECRET = "a-secret-of-twenty-or-more-characters";
  @TempDir Path data;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<Process> agents = new ArrayList<>();
  private int port;

  @AfterEach
  void stop() {
    agents.forEach(Process::destroyForcibly);
    qemus().forEach(ProcessHandle::destroyForcibly);
  }

  private Process agent() throws Exception {
    return agent("kill-1", port, data.resolve("agent"), SECRET);
  }

  /** An agent process for {@code worker}, serving plain HTTP on {@code port}. */
  private Process agent(String worker, int port, Path dir, String secret) throws Exception {
    ProcessBuilder b =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                AgentMain.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(data.resolve("agent-" + agents.size() + ".log").toFile());
    b.environment()
        .putAll(
            Map.of(
                "ROTA_CONTROLLER_URL",
                "http://127.0.0.1:9",
                "ROTA_WORKER_NAME",
                worker,
                "ROTA_AGENT_PORT",
                Integer.toString(port),
                "ROTA_AGENT_DATA_DIR",
                dir.toString(),
                "ROTA_WORKER_RUNTIMES",
                "qemu",
                "ROTA_AGENT_INSECURE_HTTP",
                "true",
                "ROTA_AGENT_SECRET",
                secret,
                "ROTA_AGENT_STOP_GRACE",
                "60s"));
    Process p = b.start();
    agents.add(p);
    eventually(
        "the agent serves",
        () -> {
          try {
            return send(port, secret, "GET", "/v1/tasks", null).statusCode() == 200;
          } catch (Exception e) {
            return false;
          }
        });
    return p;
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return send(port, SECRET, method, path, body);
  }

  private HttpResponse<String> send(
      int port, String secret, String method, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + secret)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private List<ProcessHandle> qemus() {
    return dev.rota.testing.GuestProcesses.under(data);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> task() throws Exception {
    List<Map<String, Object>> tasks =
        json.readValue(send("GET", "/v1/tasks", null).body(), List.class);
    return tasks.stream().filter(t -> t.get("id").equals("kept.0")).findFirst().orElse(Map.of());
  }

  @Test
  void aVmOutlivesItsAgentsSigkillAndIsAdoptedNotStartedAgain() throws Exception {
    TestGuest guest = TestGuest.get();
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process first = agent();
    String spec =
        "{\"vm\":\"kept\",\"restartCount\":0,\"runtime\":\"qemu\",\"resources\":{\"cpu\":1,\"memory\":128},"
            + "\"guest\":{\"kernel\":\""
            + guest.kernel().toUri()
            + "\",\"initrd\":\""
            + guest.initrd().toUri()
            + "\",\"kernelArgs\":\"quiet rota.test=run\"}}";
    assertEquals(201, send("PUT", "/v1/tasks/kept.0", spec).statusCode());
    Path console = data.resolve("agent/tasks/kept.0/stdout.log");
    eventually(
        "booted",
        Duration.ofMinutes(3),
        () -> Files.exists(console) && read(console).contains("ROTA-GUEST-ALIVE"));
    assertEquals(1, qemus().size());
    long pid = qemus().get(0).pid();

    first.destroyForcibly().waitFor(); // SIGKILL
    assertTrue(
        ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
        "the VM outlived its agent");

    agent();
    assertEquals("running", task().get("state"), "adopted");
    assertEquals(
        200,
        send("PUT", "/v1/tasks/kept.0", spec).statusCode(),
        "the controller's repeated start starts nothing");
    assertEquals(
        List.of(pid), qemus().stream().map(ProcessHandle::pid).toList(), "one QEMU, the same");

    assertEquals(204, send("DELETE", "/v1/tasks/kept.0", null).statusCode());
    eventually("an adopted VM can still be stopped", () -> qemus().isEmpty());
  }

  /**
   * An agent killed while it saves a guest's memory (its save seen begun: the file being written
   * beside its place), then started again: the controller's call, tried again, answers once the
   * memory is saved whole, with one QEMU throughout and none left; and the VM's next task resumes
   * from it, counting on in the same boot.
   */
  @Test
  void anAgentKilledWhileItSuspendsAVmLosesNothingAndTheTriedAgainSuspendSavesItWhole()
      throws Exception {
    TestGuest guest = TestGuest.get();
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process first = agent();
    assertEquals(201, send("PUT", "/v1/tasks/kept.0", counting(guest, 0, false)).statusCode());
    Path console = data.resolve("agent/tasks/kept.0/stdout.log");
    eventually(
        "counting",
        Duration.ofMinutes(3),
        () -> Files.exists(console) && read(console).contains("count=3 "));
    long pid = qemus().get(0).pid();

    java.util.concurrent.CompletableFuture<?> cut =
        java.util.concurrent.CompletableFuture.runAsync(
            () -> {
              try {
                send("POST", "/v1/tasks/kept.0/suspend", null);
              } catch (Exception e) {
                // the agent is killed under it
              }
            });
    Path disk = data.resolve("agent/disks/kept-3");
    Path whole = disk.resolve("memory.state");
    eventually(
        "the save begun",
        () -> Files.exists(disk.resolve("memory.state.partial")) || Files.exists(whole));
    first.destroyForcibly().waitFor(); // SIGKILL
    cut.join();

    agent();
    HttpResponse<String> again = send("POST", "/v1/tasks/kept.0/suspend", null);
    assertEquals(200, again.statusCode(), again.body());
    assertTrue(Files.size(whole) > 0, "saved whole, in its place");
    assertTrue(!Files.exists(disk.resolve("memory.state.partial")), "nothing half-written left");
    eventually("its QEMU ended", () -> qemus().isEmpty());
    assertTrue(!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    String goesOn = TestGuest.countsOn(read(console));

    assertEquals(204, send("DELETE", "/v1/tasks/kept.0", null).statusCode());
    assertEquals(201, send("PUT", "/v1/tasks/kept.1", counting(guest, 1, true)).statusCode());
    Path resumed = data.resolve("agent/tasks/kept.1/stdout.log");
    eventually(
        "resumed, counting on",
        Duration.ofMinutes(3),
        () -> Files.exists(resumed) && read(resumed).contains(goesOn));
    assertEquals(1, qemus().size(), "one QEMU: the resumed one");
    assertTrue(!Files.exists(whole), "its memory used once");
  }

  /**
   * An agent killed with SIGKILL while its VM moves live to another worker (the move seen begun),
   * or the agent the VM moves to, then started again: the guest runs on in exactly one place, in
   * the same boot, and the two tasks say where: one running, the other ended as moved, or failed as
   * not arrived. No QEMU is left but the one that runs it.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"leaves", "takes"})
  void anAgentKilledInTheMiddleOfALiveMoveLeavesTheGuestRunningInExactlyOnePlace(String killed)
      throws Exception {
    TestGuest guest = TestGuest.get();
    int[] ports = new int[2];
    for (int i = 0; i < 2; i++) {
      try (ServerSocket s = new ServerSocket(0)) {
        ports[i] = s.getLocalPort();
      }
    }
    String[] secrets = {SECRET, SECRET + "-of-the-other"};
    Path[] dirs = {data.resolve("a"), data.resolve("b")};
    Process[] running = {
      agent("w-a", ports[0], dirs[0], secrets[0]), agent("w-b", ports[1], dirs[1], secrets[1])
    };
    String image = guest.qcow2Disk().toUri().toString();
    assertEquals(
        201,
        send(ports[0], secrets[0], "PUT", "/v1/tasks/mover.0", moving(image, 0, null))
            .statusCode());
    Path before = dirs[0].resolve("tasks/mover.0");
    eventually(
        "counting on w-a",
        Duration.ofMinutes(3),
        () -> read(before.resolve("stdout.log")).contains("count=3 "));
    String bootId = TestGuest.countsOn(read(before.resolve("stdout.log"))).split("boot=")[1];

    Map<String, Object> from =
        Map.of(
            "worker",
            "w-a",
            "endpoint",
            "http://127.0.0.1:" + ports[0],
            "token",
            dev.rota.agentapi.DiskToken.mint(
                secrets[0], "mover-3", java.time.Instant.now().plusSeconds(600).getEpochSecond()));
    assertEquals(
        201,
        send(ports[1], secrets[1], "PUT", "/v1/tasks/mover.1", moving(image, 1, from))
            .statusCode());
    // Killed as soon as the move is seen under way (or done, on a fast machine).
    long until = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (!Files.exists(before.resolve("moving")) && !Files.exists(before.resolve("moved"))) {
      assertTrue(System.nanoTime() < until, "the move never began");
      Thread.sleep(5);
    }
    int k = killed.equals("leaves") ? 0 : 1;
    running[k].destroyForcibly().waitFor(); // SIGKILL
    running[k] = agent(k == 0 ? "w-a" : "w-b", ports[k], dirs[k], secrets[k]);

    String[] states = new String[2];
    eventually(
        "settled: one task running, the other ended",
        Duration.ofMinutes(3),
        () -> {
          states[0] = state(ports[0], secrets[0], "mover.0");
          states[1] = state(ports[1], secrets[1], "mover.1");
          return (states[0].equals("running") && states[1].equals("failed"))
              || (states[0].equals("exited") && states[1].equals("running"));
        });
    int runsOn = states[0].equals("running") ? 0 : 1;
    eventually(
        "one QEMU, where it runs",
        Duration.ofMinutes(1),
        () ->
            dev.rota.testing.GuestProcesses.under(dirs[1 - runsOn]).isEmpty()
                && dev.rota.testing.GuestProcesses.under(dirs[runsOn]).size() == 1);
    Path console = dirs[runsOn].resolve("tasks/mover." + runsOn + "/stdout.log");
    eventually(
        "counting where it runs", Duration.ofMinutes(1), () -> read(console).contains("count="));
    String goesOn = TestGuest.countsOn(read(console));
    eventually(
        "counting on in the same boot",
        Duration.ofMinutes(1),
        () -> read(console).contains(goesOn));
    assertTrue(goesOn.endsWith("boot=" + bootId), goesOn + " is not of boot " + bootId);
    assertTrue(
        !read(console).contains(TestGuest.UP) || runsOn == 0,
        "it did not boot again on w-b: " + read(console));
    System.out.printf(
        "killed the agent that %s it: the guest runs on w-%s%n", killed, runsOn == 0 ? "a" : "b");
  }

  @SuppressWarnings("unchecked")
  private String state(int port, String secret, String task) {
    try {
      List<Map<String, Object>> tasks =
          json.readValue(send(port, secret, "GET", "/v1/tasks", null).body(), List.class);
      return tasks.stream()
          .filter(t -> t.get("id").equals(task))
          .map(t -> String.valueOf(t.get("state")))
          .findFirst()
          .orElse("absent");
    } catch (Exception e) {
      return "unanswered";
    }
  }

  /**
   * A task of VM {@code mover}, submission 3, booted from {@code image} onto its persistent disk
   * and counting on its console; with {@code from}, arriving from there instead.
   */
  private static String moving(String image, int generation, Map<String, Object> from)
      throws Exception {
    Map<String, Object> spec = new java.util.LinkedHashMap<>();
    spec.put("vm", "mover");
    spec.put("restartCount", generation);
    spec.put("runtime", "qemu");
    spec.put("image", image);
    spec.put("resources", Map.of("cpu", 1, "memory", 128));
    spec.put("guest", Map.of("userData", TestGuest.COUNTER));
    spec.put("submission", 3);
    Map<String, Object> disk =
        new java.util.LinkedHashMap<>(Map.of("id", "mover-3", "persistent", true));
    if (from != null) {
      spec.put("incoming", true);
      disk.put("from", from);
    }
    spec.put("disk", disk);
    return new ObjectMapper().writeValueAsString(spec);
  }

  /** A task of VM {@code kept}, submission 3, whose guest counts on its console. */
  private static String counting(TestGuest guest, int generation, boolean resume) throws Exception {
    Map<String, Object> spec = new java.util.LinkedHashMap<>();
    spec.put("vm", "kept");
    spec.put("restartCount", generation);
    spec.put("runtime", "qemu");
    spec.put("resources", Map.of("cpu", 1, "memory", 128));
    spec.put("guest", guest.counting());
    spec.put("submission", 3);
    spec.put("resume", resume);
    return new ObjectMapper().writeValueAsString(spec);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
