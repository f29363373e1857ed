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
                "ROTA_CONTROLLER_URL", "http://127.0.0.1:9",
                "ROTA_WORKER_NAME", "kill-1",
                "ROTA_AGENT_PORT", Integer.toString(port),
                "ROTA_AGENT_DATA_DIR", data.resolve("agent").toString(),
                "ROTA_WORKER_RUNTIMES", "qemu",
                "ROTA_AGENT_INSECURE_HTTP", "true",
                "ROTA_AGENT_SECRET", SECRET,
                "ROTA_AGENT_STOP_GRACE", "60s"));
    Process p = b.start();
    agents.add(p);
    eventually(
        "the agent serves",
        () -> {
          try {
            return send("GET", "/v1/tasks", null).statusCode() == 200;
          } catch (Exception e) {
            return false;
          }
        });
    return p;
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + SECRET)
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

  /** A task of VM {@code kept}, submission 3, whose guest counts on its console. */
  private static String counting(TestGuest guest, int generation, boolean resume) throws Exception {
    Map<String, Object> spec = new java.util.LinkedHashMap<>();
    spec.put("vm", "kept");
    spec.put("restartCount", generation);
    spec.put("runtime", "qemu");
    spec.put("resources", Map.of("cpu", 1, "memory", 128));
    spec.put(
        "guest",
        Map.of(
            "kernel",
            guest.kernel().toUri().toString(),
            "initrd",
            guest.initrd().toUri().toString(),
            "kernelArgs",
            "quiet",
            "userData",
            TestGuest.COUNTER));
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
