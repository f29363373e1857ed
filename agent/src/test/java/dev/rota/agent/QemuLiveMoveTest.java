package dev.rota.agent;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.config.AgentConfig;
import dev.rota.agent.server.AgentTlsTest;
import dev.rota.agentapi.DiskToken;
import dev.rota.testing.GuestProcesses;
import dev.rota.testing.TestGuest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running VM moved between two agents while it runs, asked for by its next task on the other
 * worker with the controller's token for its disk, over the agents' own TLS: it counts on in the
 * same boot there, with what it wrote on its disk, and only one QEMU ever runs it. A move the agent
 * it would leave refuses leaves it running where it was.
 */
class QemuLiveMoveTest {
  private static final Duration BOOT = Duration.ofMinutes(3);

  /**
   * User data: counts its boots on its boot disk, then counts each second, writing the count to
   * that disk too, so that the disk is being written while it moves.
   */
  private static final String WRITER =
      "#!/bin/sh\n"
          + TestGuest.COUNT_BOOTS_ON_DISK
          + """
      echo "boots=$n"
      boot=$(cat /proc/sys/kernel/random/boot_id)
      i=0
      while true; do
        i=$((i + 1)); echo "$i" > /d/count; sync; echo "count=$i boot=$boot"; sleep 1
      done
      """;

  @TempDir Path a;
  @TempDir Path b;
  @TempDir Path tls;
  private final ObjectMapper json = new ObjectMapper();
  private Agent from;
  private Agent to;

  @AfterEach
  void stop() {
    for (Agent agent : new Agent[] {from, to}) {
      if (agent != null) {
        agent.close();
      }
    }
    GuestProcesses.under(a).forEach(ProcessHandle::destroyForcibly);
    GuestProcesses.under(b).forEach(ProcessHandle::destroyForcibly);
  }

  private Agent agent(String worker, Path data) {
    Map<String, String> env = new HashMap<>();
    env.put("ROTA_CONTROLLER_URL", "http://127.0.0.1:9");
    env.put("ROTA_WORKER_NAME", worker);
    env.put("ROTA_AGENT_PORT", "0");
    env.put("ROTA_AGENT_DATA_DIR", data.toString());
    env.put("ROTA_AGENT_STOP_GRACE", "60s");
    env.put("ROTA_WORKER_RUNTIMES", "qemu");
    env.put("ROTA_AGENT_TLS_KEYSTORE", tls.resolve(worker + ".p12").toString());
    return Agent.start(AgentConfig.from(env, new String[0]));
  }

  private static HttpResponse<String> send(Agent agent, String method, String path, String body)
      throws Exception {
    HttpClient http = AgentTlsTest.pinned(agent, agent.certificateSha256());
    return http.send(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + agent.port() + path))
            .header("Authorization", "Bearer " + agent.secret())
            .timeout(Duration.ofMinutes(5))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The VM's task spec: booting, or arriving ({@code from} where it runs) when not null. */
  private String spec(int restartCount, String image, Map<String, Object> from) throws Exception {
    Map<String, Object> spec = new HashMap<>();
    spec.put("vm", "mover");
    spec.put("restartCount", restartCount);
    spec.put("runtime", "qemu");
    spec.put("image", image);
    spec.put("resources", Map.of("cpu", 1, "memory", 128));
    spec.put("guest", Map.of("userData", WRITER));
    spec.put("submission", 3);
    Map<String, Object> disk = new HashMap<>(Map.of("id", "mover-3", "persistent", true));
    if (from != null) {
      spec.put("incoming", true);
      disk.put("from", from);
    }
    spec.put("disk", disk);
    return json.writeValueAsString(spec);
  }

  /**
   * A task waiting for its VM when its agent restarts never runs: the connections that would have
   * carried the VM went with the agent, so the adopted task ends, saying why, and its QEMU with it.
   * Told running, the controller would end the VM's old copy, where the guest still runs.
   */
  @Test
  void aTaskWaitingForItsVmWhenItsAgentRestartsEndsSayingSoAndNeverRuns() throws Exception {
    TestGuest guest = TestGuest.get();
    to = agent("w-b", b);
    Map<String, Object> waiting =
        json.readValue(spec(1, guest.qcow2Disk().toUri().toString(), null), Map.class);
    waiting.put("incoming", true); // sent to by the worker it leaves, when that one pushes it
    assertEquals(
        201, send(to, "PUT", "/v1/tasks/mover.1", json.writeValueAsString(waiting)).statusCode());
    eventually("its QEMU waiting", BOOT, () -> GuestProcesses.under(b).size() == 1);
    assertEquals("starting", task(to, "mover.1").get("state"), task(to, "mover.1").toString());

    to.close();
    to = agent("w-b", b);
    eventually("ended", BOOT, () -> "failed".equals(task(to, "mover.1").get("state")));
    assertTrue(
        String.valueOf(task(to, "mover.1").get("message"))
            .contains("the agent restarted while it arrived"),
        task(to, "mover.1").toString());
    eventually("its QEMU gone", BOOT, () -> GuestProcesses.under(b).isEmpty());
  }

  /**
   * Where the VM runs, as the controller says it: {@code agent}, with a token for its disk there
   * signed with {@code secret} (that agent's own, or not).
   */
  private static Map<String, Object> from(Agent agent, String worker, String secret) {
    return Map.of(
        "worker",
        worker,
        "endpoint",
        "https://127.0.0.1:" + agent.port(),
        "token",
        DiskToken.mint(
            secret, "mover-3", Instant.now().plus(Duration.ofMinutes(10)).getEpochSecond()),
        "certificateSha256",
        agent.certificateSha256());
  }

  private static String token(Agent agent, String task) {
    return DiskToken.mint(
        agent.secret(),
        DiskToken.incoming(task),
        Instant.now().plus(Duration.ofMinutes(10)).getEpochSecond());
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> task(Agent agent, String id) {
    try {
      List<Map<String, Object>> tasks =
          json.readValue(send(agent, "GET", "/v1/tasks", null).body(), List.class);
      return tasks.stream().filter(t -> t.get("id").equals(id)).findFirst().orElse(Map.of());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String console(Path data, String task) {
    try {
      Path log = data.resolve("tasks").resolve(task).resolve("stdout.log");
      return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
    } catch (java.io.IOException e) {
      return "";
    }
  }

  @Test
  void aRunningVmMovesWithItsDiskAndMemoryAndCountsOnInTheSameBoot() throws Exception {
    TestGuest guest = TestGuest.get();
    String image =
        guest.qcow2Disk().toUri()
            + "@sha256:"
            + HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256")
                        .digest(Files.readAllBytes(guest.qcow2Disk())));
    from = agent("w-a", a);
    to = agent("w-b", b);

    assertEquals(201, send(from, "PUT", "/v1/tasks/mover.0", spec(0, image, null)).statusCode());
    eventually("counting on w-a", BOOT, () -> console(a, "mover.0").contains("count=3 "));

    // Nobody but the worker it leaves, with the controller's token, may send a VM to a task.
    HttpResponse<String> stranger =
        AgentTlsTest.pinned(from, from.certificateSha256())
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "https://127.0.0.1:"
                                + from.port()
                                + "/v1/tasks/mover.0/incoming/memory"))
                    .header("Authorization", "Bearer " + token(to, "mover.0"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(401, stranger.statusCode(), "a token signed by another agent's secret");

    // The controller starts the VM's next task on w-b, saying where it runs: w-b's agent asks
    // w-a's for it, with the controller's token for its disk there. w-a's answer is lost on the
    // way once the move has begun: only w-b's QEMU can say that the VM arrived, and it does.
    Path leaving = a.resolve("tasks").resolve("mover.0");
    AnswerCuttingProxy lossy =
        new AnswerCuttingProxy(
            from.port(),
            () ->
                Files.exists(leaving.resolve("moving")) || Files.exists(leaving.resolve("moved")));
    Map<String, Object> where = new java.util.HashMap<>(from(from, "w-a", from.secret()));
    where.put("endpoint", "https://127.0.0.1:" + lossy.port());
    assertEquals(201, send(to, "PUT", "/v1/tasks/mover.1", spec(1, image, where)).statusCode());
    eventually(
        "its task on w-a ended", BOOT, () -> "exited".equals(task(from, "mover.0").get("state")));
    assertEquals("moved to worker w-b while it ran", task(from, "mover.0").get("message"));
    assertEquals(List.of(), GuestProcesses.under(a), "no QEMU left on w-a");
    assertEquals(
        1, GuestProcesses.under(b).size(), "one QEMU runs it, on w-b: " + task(to, "mover.1"));
    // Running once its VM arrived, not before: told running sooner, the controller would end the
    // old copy, the one the guest still ran in.
    eventually("running on w-b", BOOT, () -> "running".equals(task(to, "mover.1").get("state")));
    assertEquals(1, lossy.cuts(), "w-a's answer was lost");
    lossy.close();
    // What w-b's agent asked w-a's once the answer was lost, and what w-b's says of the VM now.
    assertEquals(
        Map.of("state", "moved", "worker", "w-b"),
        json.readValue(
            send(from, "GET", "/v1/disks/mover-3/move?worker=w-b", null).body(), Map.class));
    assertEquals(
        "stays",
        json.readValue(send(to, "GET", "/v1/disks/mover-3/move?worker=w-a", null).body(), Map.class)
            .get("state"));
    assertEquals(
        "gone",
        json.readValue(
                send(from, "GET", "/v1/disks/mover-3/move?worker=w-c", null).body(), Map.class)
            .get("state"),
        "sent to w-b: for w-c, it will never come");
    assertEquals(400, send(to, "GET", "/v1/disks/mover-3/move", null).statusCode());
    String goesOn = TestGuest.countsOn(console(a, "mover.0"));
    eventually(
        "counting on in the same boot on w-b", BOOT, () -> console(b, "mover.1").contains(goesOn));
    assertFalse(console(b, "mover.1").contains(TestGuest.UP), "it did not boot again");

    // Back towards w-a, with a token w-b's agent does not take: the task there fails, saying why,
    // and the VM runs on where it was, counting on.
    assertEquals(
        201,
        send(from, "PUT", "/v1/tasks/mover.2", spec(2, image, from(to, "w-b", from.secret())))
            .statusCode());
    eventually(
        "the task on w-a failed", BOOT, () -> "failed".equals(task(from, "mover.2").get("state")));
    String why = String.valueOf(task(from, "mover.2").get("message"));
    assertTrue(why.contains("did not arrive") && why.contains("answered 401"), why);
    assertEquals("running", task(to, "mover.1").get("state"));
    String still = TestGuest.countsOn(console(b, "mover.1"));
    eventually("counting on, still on w-b", BOOT, () -> console(b, "mover.1").contains(still));
    assertEquals(1, GuestProcesses.under(b).size());
    eventually("nothing left on w-a", () -> GuestProcesses.under(a).isEmpty());

    // Its disk on w-b holds what it wrote on w-a and after: stopped there, the disk says so.
    String counted = TestGuest.countsOn(console(b, "mover.1"));
    assertEquals(204, send(to, "DELETE", "/v1/tasks/mover.1", null).statusCode());
    eventually("stopped on w-b", BOOT, () -> GuestProcesses.under(b).isEmpty());
    Path disk = b.resolve("disks/mover-3/disk.qcow2");
    assertEquals("1", fatFile(disk, "boots"), "booted once, on w-a");
    int last = Integer.parseInt(fatFile(disk, "count"));
    int atMove = Integer.parseInt(goesOn.substring("count=".length(), goesOn.indexOf(' '))) - 1;
    assertTrue(
        last >= atMove,
        "its disk counted on past the move (" + atMove + "): " + last + "; " + counted);
  }

  /** A file of the FAT file system on a qcow2 disk, read by mtools from a raw copy. */
  private String fatFile(Path qcow2, String name) throws Exception {
    Path raw = b.resolve("check.img");
    run("qemu-img", "convert", "-f", "qcow2", "-O", "raw", qcow2.toString(), raw.toString());
    return run("mtype", "-i", raw.toString(), "::" + name).strip();
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + out);
    return out;
  }
}
