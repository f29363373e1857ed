package dev.rota.agent;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.config.AgentConfig;
import dev.rota.agent.runtimes.Cgroups;
import dev.rota.agent.server.AgentHttp;
import dev.rota.agent.server.AgentTlsTest;
import dev.rota.testing.Needs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One real agent on loopback (its controller unreachable: it keeps trying, tasks unaffected). */
class AgentTest {
  @TempDir Path data;

  /** One certificate for all the tests' agents: generated once, by the first. */
  @TempDir static Path tls;

  private HttpClient http;
  private final ObjectMapper json = new ObjectMapper();
  private Agent agent;

  private Agent start(String... extra) {
    Map<String, String> env = new HashMap<>();
    env.put("ROTA_CONTROLLER_URL", "http://127.0.0.1:9");
    env.put("ROTA_WORKER_NAME", "test-1");
    env.put("ROTA_AGENT_PORT", "0");
    env.put("ROTA_AGENT_DATA_DIR", data.toString());
    env.put("ROTA_AGENT_STOP_GRACE", "300ms");
    env.put("ROTA_WORKER_RUNTIMES", "process,synthetic");
    env.put("ROTA_AGENT_SYNTHETIC_START_DELAY", "50ms");
    env.put("ROTA_AGENT_TLS_KEYSTORE", tls.resolve("agent.p12").toString());
    for (int i = 0; i < extra.length; i += 2) {
      env.put(extra[i], extra[i + 1]);
    }
    agent = Agent.start(AgentConfig.from(env, new String[0]));
    http =
        agent.certificateSha256() == null
            ? HttpClient.newHttpClient()
            : AgentTlsTest.pinned(agent, agent.certificateSha256());
    return agent;
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return send(method, path, body, "Bearer " + agent.secret());
  }

  private HttpResponse<String> send(String method, String path, String body, String authorization)
      throws Exception {
    return send(method, path, body, authorization, Map.of());
  }

  private HttpResponse<String> send(
      String method, String path, String body, String authorization, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create(
                    (agent.certificateSha256() == null ? "http" : "https")
                        + "://127.0.0.1:"
                        + agent.port()
                        + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Its server sends each answer at once rather than holding it for the caller's delayed ACK (40 ms
   * a call on Linux, which LoadHarness 10x100 measured as 0.5 s per burst of starts): the JDK
   * server reads the setting when the process makes its first one, so the agent must have set it by
   * then. Likewise it keeps a quiet connection open for ten minutes, not 30 s, so that the
   * scheduler's calls, a minute or more apart at a thousand workers, need no new TLS handshake.
   */
  @Test
  void itsServerAnswersWithoutNagleDelayAndKeepsQuietConnectionsOpen() throws Exception {
    start();
    assertEquals("true", System.getProperty(AgentHttp.NODELAY));
    assertEquals("600", System.getProperty(AgentHttp.IDLE_SECONDS));
    assertEquals(200, send("GET", "/healthz", null).statusCode());
  }

  @Test
  void anyoneWithoutTheSecretIsRefused() throws Exception {
    start("ROTA_AGENT_SECRET", "a-fixed-secret-for-this-test");
    assertEquals(200, send("GET", "/healthz", null, null).statusCode(), "readiness is no secret");
    for (String authorization :
        new String[] {
          null, "Bearer wrong-secret-xxxxxxxxxxxxxxxx", "a-fixed-secret-for-this-test"
        }) {
      assertEquals(
          401,
          send("GET", "/v1/tasks", null, authorization).statusCode(),
          String.valueOf(authorization));
      assertEquals(
          401,
          send("PUT", "/v1/tasks/z.0", spec("z", "process", "sleep", "306"), authorization)
              .statusCode());
      assertEquals(401, send("DELETE", "/v1/tasks/z.0", null, authorization).statusCode());
    }
    assertTrue(processes("sleep 306").isEmpty(), "nothing was started");
    assertEquals(
        201,
        send(
                "PUT",
                "/v1/tasks/z.0",
                spec("z", "process", "sleep", "306"),
                "Bearer a-fixed-secret-for-this-test")
            .statusCode());
    assertEquals(204, send("DELETE", "/v1/tasks/z.0", null).statusCode());
  }

  private static String spec(String vm, String runtime, String... command) {
    StringBuilder c = new StringBuilder();
    for (String part : command) {
      c.append(c.length() == 0 ? "" : ",")
          .append('"')
          .append(part.replace("\"", "\\\""))
          .append('"');
    }
    return "{\"vm\":\""
        + vm
        + "\",\"restartCount\":0,\"runtime\":\""
        + runtime
        + "\",\"command\":["
        + c
        + "],\"env\":{\"GREETING\":\"hi\"}}";
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> task(String id) throws Exception {
    List<Map<String, Object>> tasks =
        json.readValue(send("GET", "/v1/tasks", null).body(), List.class);
    return tasks.stream().filter(t -> id.equals(t.get("id"))).findFirst().orElse(null);
  }

  private static List<ProcessHandle> processes(String args) {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.endsWith(args)).orElse(false))
        .toList();
  }

  @Test
  void putIsIdempotentAndDeleteEndsTheProcess() throws Exception {
    start();
    assertEquals(200, send("GET", "/healthz", null).statusCode());
    assertEquals(
        201, send("PUT", "/v1/tasks/a.0", spec("a", "process", "sleep", "303")).statusCode());
    assertEquals(
        200,
        send("PUT", "/v1/tasks/a.0", spec("a", "process", "sleep", "303")).statusCode(),
        "already there");
    assertEquals("running", task("a.0").get("state"));
    eventually("started once", () -> processes("sleep 303").size() == 1);

    assertEquals(204, send("DELETE", "/v1/tasks/a.0", null).statusCode());
    assertTrue(processes("sleep 303").isEmpty());
    assertEquals(204, send("DELETE", "/v1/tasks/a.0", null).statusCode(), "gone already is fine");
    assertEquals(null, task("a.0"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void aBatchStartsEachTaskAsItsOwnPutWouldAndSaysWhatCameOfEach() throws Exception {
    start();
    String batch =
        "{\"items\":["
            + "{\"id\":\"s.0\",\"spec\":"
            + spec("s", "process", "sleep", "311")
            + "},{\"id\":\"t.0\",\"spec\":"
            + spec("t", "no-such-runtime", "sleep", "312")
            + "},{\"id\":\"not a task id\",\"spec\":"
            + spec("u", "process", "sleep", "313")
            + "},{\"id\":\"v.0\",\"spec\":"
            + spec("v", "process", "sleep", "314")
            + "}]}";
    HttpResponse<String> first = send("POST", "/v1/tasks", batch);
    assertEquals(200, first.statusCode(), first.body());
    List<Map<String, Object>> outcomes =
        (List<Map<String, Object>>)
            new com.fasterxml.jackson.databind.ObjectMapper()
                .readValue(first.body(), Map.class)
                .get("items");
    assertEquals(
        List.of("s.0", "t.0", "not a task id", "v.0"), ids(outcomes), "in the order asked");
    assertEquals(List.of(201, 400, 400, 201), statuses(outcomes));
    assertTrue(
        String.valueOf(outcomes.get(1).get("detail")).contains("runtime no-such-runtime"),
        outcomes.toString());
    assertEquals("running", task("s.0").get("state"));
    assertEquals("running", task("v.0").get("state"), "one refused leaves the others started");
    assertEquals(null, task("t.0"));

    HttpResponse<String> again = send("POST", "/v1/tasks", batch);
    assertEquals(
        List.of(200, 400, 400, 200),
        statuses(
            (List<Map<String, Object>>)
                new com.fasterxml.jackson.databind.ObjectMapper()
                    .readValue(again.body(), Map.class)
                    .get("items")),
        "already there");
    eventually("each started once", () -> processes("sleep 311").size() == 1);
    assertEquals(1, processes("sleep 314").size());
    assertTrue(processes("sleep 313").isEmpty());

    assertEquals(400, send("POST", "/v1/tasks", "{\"items\":3}").statusCode());
    assertEquals(400, send("POST", "/v1/tasks", "{}").statusCode(), "no items");
    assertEquals(400, send("POST", "/v1/tasks", "{\"items\":[]}").statusCode(), "no items");
    send("DELETE", "/v1/tasks/s.0", null);
    send("DELETE", "/v1/tasks/v.0", null);
  }

  @Test
  void aBatchOfRemovalsRemovesEachTaskAndDropsTheDeletedVmsLogs() throws Exception {
    start();
    send("PUT", "/v1/tasks/r.0", spec("r", "process", "sh", "-c", "echo r0; exit 3"));
    eventually("ended", () -> ended("r.0"));
    assertEquals(204, send("DELETE", "/v1/tasks/r.0", null).statusCode());
    assertEquals("r0\n", send("GET", "/v1/tasks/r.0/logs", null).body(), "kept");
    send("PUT", "/v1/tasks/r.1", spec("r", "process", "sleep", "321"));
    send("PUT", "/v1/tasks/q.0", ofSubmission(1, spec("q", "process", "sleep", "322")));
    send("PUT", "/v1/tasks/p.0", ofSubmission(1, spec("p", "process", "sleep", "323")));
    java.util.function.IntSupplier running =
        () ->
            processes("sleep 321").size()
                + processes("sleep 322").size()
                + processes("sleep 323").size();
    eventually("running", () -> running.getAsInt() == 3);

    assertEquals(
        400,
        send("POST", "/v1/removals", "{\"tasks\":[{\"id\":\"r\"}]}").statusCode(),
        "not a task id");
    assertEquals(400, send("POST", "/v1/removals", "{\"vms\":[\"..\"]}").statusCode());
    assertEquals(400, send("POST", "/v1/removals", "{}").statusCode(), "nothing to remove");
    assertEquals(400, send("POST", "/v1/removals", "{\"tasks\":3}").statusCode());
    assertEquals(405, send("GET", "/v1/removals", null).statusCode());
    assertEquals(3, running.getAsInt(), "a refused batch removes nothing");

    HttpResponse<String> removed =
        send(
            "POST",
            "/v1/removals",
            "{\"tasks\":[{\"id\":\"r.1\"},{\"id\":\"q.0\",\"submission\":1},"
                + "{\"id\":\"p.0\",\"submission\":999}],\"vms\":[\"r\"]}");
    assertEquals(204, removed.statusCode(), removed.body());
    assertEquals(null, task("r.1"));
    assertTrue(processes("sleep 321").isEmpty(), "ended before the answer");
    assertEquals(null, task("q.0"), "of its submission");
    assertEquals("running", task("p.0").get("state"), "of another submission: left");
    assertEquals(404, send("GET", "/v1/tasks/r.0/logs", null).statusCode(), "the VM's logs go");
    assertEquals(404, send("GET", "/v1/tasks/q.0/logs", null).statusCode(), "nothing kept");
    assertEquals(
        204,
        send("POST", "/v1/removals", "{\"tasks\":[{\"id\":\"r.1\"}]}").statusCode(),
        "gone already is fine");
    send("DELETE", "/v1/tasks/p.0", null);
  }

  private static String ofSubmission(long submission, String spec) {
    return spec.replaceFirst("^\\{", "{\"submission\":" + submission + ",");
  }

  private static List<Object> ids(List<Map<String, Object>> outcomes) {
    return outcomes.stream().map(o -> o.get("id")).toList();
  }

  private static List<Object> statuses(List<Map<String, Object>> outcomes) {
    return outcomes.stream().map(o -> o.get("status")).toList();
  }

  @Test
  void exitCodesOutputAndTheEnvironmentReachTheController() throws Exception {
    start();
    send("PUT", "/v1/tasks/b.0", spec("b", "process", "sh", "-c", "echo $GREETING; exit 7"));
    eventually(
        "exited",
        () -> {
          try {
            return "exited".equals(task("b.0").get("state"));
          } catch (Exception e) {
            return false;
          }
        });
    assertEquals(7, task("b.0").get("exitCode"));
    eventually(
        "output kept",
        () -> {
          try {
            return send("GET", "/v1/tasks/b.0/logs", null).body().equals("hi\n");
          } catch (Exception e) {
            return false;
          }
        });
  }

  @Test
  void aProcessIsGivenAWorkersPortForEachNamedPortAndListsIt() throws Exception {
    start("ROTA_AGENT_PORT_RANGE", "24100-24199");
    String ported =
        "{\"vm\":\"p\",\"restartCount\":0,\"runtime\":\"process\","
            + "\"command\":[\"sh\",\"-c\",\"echo $ROTA_PORT_WEB $ROTA_PORT_ADMIN_UI; sleep 300\"],"
            + "\"ports\":[{\"name\":\"web\",\"port\":80},{\"name\":\"admin-ui\",\"port\":81}]}";
    send("PUT", "/v1/tasks/p.0", ported);
    send("PUT", "/v1/tasks/q.0", ported.replace("\"vm\":\"p\"", "\"vm\":\"q\""));
    eventually(
        "both told their ports",
        () -> {
          try {
            return send("GET", "/v1/tasks/q.0/logs", null).body().endsWith("\n")
                && send("GET", "/v1/tasks/p.0/logs", null).body().endsWith("\n");
          } catch (Exception e) {
            return false;
          }
        });
    java.util.Set<Integer> all = new java.util.HashSet<>();
    for (String id : java.util.List.of("p.0", "q.0")) {
      Map<?, ?> ports = (Map<?, ?>) task(id).get("ports");
      int web = ((Number) ports.get("web")).intValue();
      int admin = ((Number) ports.get("admin-ui")).intValue();
      assertTrue(
          web >= 24100 && web <= 24199 && admin >= 24100 && admin <= 24199, ports.toString());
      assertEquals(web + " " + admin + "\n", send("GET", "/v1/tasks/" + id + "/logs", null).body());
      all.add(web);
      all.add(admin);
    }
    assertEquals(4, all.size(), "no two ports alike on one worker: " + all);
    send("DELETE", "/v1/tasks/p.0", null);
    send("DELETE", "/v1/tasks/q.0", null);
  }

  @Test
  void aTunnelReachesARunningTasksPortOverTheAgentsPinnedTls() throws Exception {
    start("ROTA_AGENT_PORT_RANGE", "24300-24399");
    send(
        "PUT",
        "/v1/tasks/t.0",
        "{\"vm\":\"t\",\"restartCount\":0,\"runtime\":\"process\",\"command\":[\"sleep\",\"300\"],"
            + "\"ports\":[{\"name\":\"echo\",\"port\":7}]}");
    eventually(
        "running",
        () -> {
          try {
            return "running".equals(task("t.0").get("state"));
          } catch (Exception e) {
            return false;
          }
        });
    int hostPort = ((Number) ((Map<?, ?>) task("t.0").get("ports")).get("echo")).intValue();
    // What listens on the task's port: an upper-casing echo, until its caller stops sending.
    try (java.net.ServerSocket vm =
        new java.net.ServerSocket(hostPort, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      Thread echo =
          new Thread(
              () -> {
                try (java.net.Socket c = vm.accept()) {
                  byte[] all = c.getInputStream().readAllBytes();
                  c.getOutputStream()
                      .write(
                          new String(all, java.nio.charset.StandardCharsets.UTF_8)
                              .toUpperCase()
                              .getBytes());
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      echo.start();
      try (dev.rota.agentapi.TaskTunnel tunnel = tunnel("t.0", "echo")) {
        tunnel.output().write("hello ".getBytes());
        tunnel.output().write("through the agent".getBytes());
        tunnel.output().close();
        assertEquals(
            "HELLO THROUGH THE AGENT",
            new String(tunnel.input().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
            "both ways, ended by the VM's close");
      }
      echo.join(10_000);
    }
    dev.rota.agentapi.TaskTunnel.Refused noPort =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.rota.agentapi.TaskTunnel.Refused.class, () -> tunnel("t.0", "ssh"));
    assertEquals(404, noPort.status());
    assertEquals("task t.0 has no port named ssh", noPort.getMessage());
    dev.rota.agentapi.TaskTunnel.Refused closed =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.rota.agentapi.TaskTunnel.Refused.class, () -> tunnel("t.0", "echo"));
    assertEquals(502, closed.status(), "nothing listens on the port now");
    assertTrue(closed.getMessage().contains("does not accept connections"), closed.getMessage());
    send("DELETE", "/v1/tasks/t.0", null);
  }

  private dev.rota.agentapi.TaskTunnel tunnel(String task, String port) throws Exception {
    return open(dev.rota.agentapi.TaskTunnel.port(task, port));
  }

  private dev.rota.agentapi.TaskTunnel open(String target) throws Exception {
    dev.rota.agentapi.PinnedCertificates pins = new dev.rota.agentapi.PinnedCertificates();
    String authority = "127.0.0.1:" + agent.port();
    pins.expect(authority, agent.certificateSha256());
    java.net.Socket socket =
        pins.context().getSocketFactory().createSocket("127.0.0.1", agent.port());
    return dev.rota.agentapi.TaskTunnel.open(socket, authority, agent.secret(), target);
  }

  /** A command's output on each stream and its exit code. */
  private record Ran(String stdout, String stderr, Integer code) {}

  private Ran exec(String task, String stdin, String... command) throws Exception {
    try (dev.rota.agentapi.TaskTunnel tunnel =
        open(dev.rota.agentapi.TaskTunnel.exec(task, List.of(command)))) {
      tunnel.output().write(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      tunnel.output().close();
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
      dev.rota.agentapi.ExecFrames.Reader frames =
          new dev.rota.agentapi.ExecFrames.Reader(out, err);
      tunnel.input().transferTo(frames);
      return new Ran(out.toString(), err.toString(), frames.exitCode());
    }
  }

  @Test
  void execRunsACommandInAProcessTasksEnvironmentWithItsExitCode() throws Exception {
    start();
    send(
        "PUT",
        "/v1/tasks/x.0",
        "{\"vm\":\"x\",\"restartCount\":0,\"runtime\":\"process\",\"command\":[\"sleep\",\"300\"],"
            + "\"env\":{\"GREETING\":\"hello from x\"}}");
    eventually(
        "running",
        () -> {
          try {
            return "running".equals(task("x.0").get("state"));
          } catch (Exception e) {
            return false;
          }
        });
    Ran ran =
        exec(
            "x.0", "typed in\n", "sh", "-c", "echo \"$GREETING\"; pwd; cat; echo oops >&2; exit 7");
    assertEquals(7, ran.code(), "the command's own exit code");
    assertTrue(
        ran.stdout()
            .matches(
                "hello from x\n"
                    + java.util.regex.Pattern.quote(data.toString())
                    + "/.*/x\\.0\ntyped in\n"),
        "the task's variables and folder, and the user's stdin: " + ran.stdout());
    assertEquals("oops\n", ran.stderr());
    assertEquals(0, exec("x.0", "", "true").code());
    dev.rota.agentapi.TaskTunnel.Refused missing =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.rota.agentapi.TaskTunnel.Refused.class,
            () -> exec("x.0", "", "no-such-program-here"));
    assertEquals(400, missing.status());
    assertEquals("cannot run no-such-program-here: no such executable file", missing.getMessage());
    dev.rota.agentapi.TaskTunnel.Refused console =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.rota.agentapi.TaskTunnel.Refused.class,
            () -> open(dev.rota.agentapi.TaskTunnel.console("x.0")));
    assertEquals(409, console.status(), "a process has no console");
    HttpResponse<String> userData = send("POST", "/v1/tasks/x.0/user-data", "token=1");
    assertEquals(422, userData.statusCode(), "a process takes no user data once started");
    assertTrue(userData.body().contains("only qemu VMs' guests do"), userData.body());
    assertEquals(
        404,
        send("POST", "/v1/tasks/x.0/user-data?submission=9", "token=1").statusCode(),
        "a task of another submission");
    assertEquals(405, send("GET", "/v1/tasks/x.0/user-data", null).statusCode());
    send("DELETE", "/v1/tasks/x.0", null);
    assertEquals(404, send("POST", "/v1/tasks/x.0/user-data", "token=1").statusCode());
    dev.rota.agentapi.TaskTunnel.Refused gone =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.rota.agentapi.TaskTunnel.Refused.class, () -> exec("x.0", "", "true"));
    assertEquals(404, gone.status());
  }

  @Test
  void logsOutliveTheirTaskForTwoGenerationsUntilTheVmIsForgotten() throws Exception {
    start();
    for (int g = 0; g < 3; g++) {
      send(
          "PUT", "/v1/tasks/k." + g, spec("k", "process", "sh", "-c", "echo gen" + g + "; exit 3"));
      String id = "k." + g;
      eventually("ended", () -> ended(id));
      assertEquals(204, send("DELETE", "/v1/tasks/" + id, null).statusCode());
    }
    HttpResponse<String> last = send("GET", "/v1/tasks/k.2/logs", null);
    assertEquals("gen2\n", last.body(), "the removed task's output is kept");
    assertEquals("false", last.headers().firstValue("Rota-Log-Live").orElse(null));
    assertEquals("gen1\n", send("GET", "/v1/tasks/k.1/logs", null).body(), "and the one before");
    assertEquals(404, send("GET", "/v1/tasks/k.0/logs", null).statusCode(), "older ones go");

    send("PUT", "/v1/tasks/k.3", spec("k", "process", "sh", "-c", "echo gen3; exit 3"));
    eventually("ended", () -> ended("k.3"));
    assertEquals(204, send("DELETE", "/v1/logs/k", null).statusCode());
    assertEquals(404, send("GET", "/v1/tasks/k.2/logs", null).statusCode(), "the VM is gone");
    assertEquals(204, send("DELETE", "/v1/tasks/k.3", null).statusCode());
    assertEquals(
        404,
        send("GET", "/v1/tasks/k.3/logs", null).statusCode(),
        "a task removed after its VM was deleted leaves nothing kept");
    assertEquals(400, send("DELETE", "/v1/logs/..", null).statusCode());

    // A start that reached the agent after the deletion's forgetting: its removal says the VM is
    // gone.
    send("PUT", "/v1/tasks/k.4", spec("k", "process", "sh", "-c", "echo gen4; exit 3"));
    eventually("ended", () -> ended("k.4"));
    assertEquals(400, send("DELETE", "/v1/tasks/k.4?logs=maybe", null).statusCode());
    assertTrue(ended("k.4"), "a removal it cannot read removes nothing");
    assertEquals(204, send("DELETE", "/v1/tasks/k.4?logs=discard", null).statusCode());
    assertEquals(
        404,
        send("GET", "/v1/tasks/k.4/logs", null).statusCode(),
        "a task removed with its logs leaves nothing kept");
  }

  @Test
  void aWorkerWithoutQemuHoldsNoDisksAndTheDiskApiNamesWhatItTakes() throws Exception {
    start();
    HttpResponse<String> listed = send("GET", "/v1/disks", null);
    assertEquals(200, listed.statusCode());
    assertEquals("[]", listed.body());
    assertEquals(204, send("DELETE", "/v1/disks/web-12", null).statusCode(), "none: gone already");
    HttpResponse<String> bad = send("DELETE", "/v1/disks/..", null);
    assertEquals(400, bad.statusCode());
    assertTrue(bad.body().contains("not a disk id"), bad.body());
    assertEquals(405, send("PUT", "/v1/disks/web-12", "{}").statusCode());
  }

  @Test
  void aLogIsReadFromAnOffsetFromATimeOrByItsLastLines() throws Exception {
    start();
    send(
        "PUT",
        "/v1/tasks/o.0",
        spec("o", "process", "sh", "-c", "printf 'a\\nb\\nc\\n'; sleep 318"));
    eventually("written", () -> logs("o.0", "").equals("a\nb\nc\n"));
    HttpResponse<String> all = send("GET", "/v1/tasks/o.0/logs", null);
    assertEquals("6", all.headers().firstValue("Rota-Log-Next").orElse(null));
    assertEquals("true", all.headers().firstValue("Rota-Log-Live").orElse(null));
    assertEquals("c\n", logs("o.0", "?from=4"));
    assertEquals("", logs("o.0", "?from=6"), "nothing new yet");
    assertEquals("b\nc\n", logs("o.0", "?tailLines=2"));
    assertEquals("a\nb\nc\n", logs("o.0", "?tailLines=10"));
    eventually("sampled", () -> !logs("o.0", "?since=" + java.time.Instant.now()).contains("a"));
    assertEquals(
        "a\nb\nc\n", logs("o.0", "?since=2000-01-01T00:00:00Z"), "all was written after then");
    assertEquals(400, send("GET", "/v1/tasks/o.0/logs?from=x", null).statusCode());
    assertEquals(400, send("GET", "/v1/tasks/o.0/logs?stream=stdin", null).statusCode());
    send("DELETE", "/v1/tasks/o.0", null);
    eventually("its processes end", () -> processes("sleep 318").isEmpty());
  }

  private boolean ended(String id) {
    try {
      Object state = task(id).get("state");
      return "exited".equals(state) || "failed".equals(state);
    } catch (Exception e) {
      return false;
    }
  }

  private String logs(String id, String query) {
    try {
      return send("GET", "/v1/tasks/" + id + "/logs" + query, null).body();
    } catch (Exception e) {
      return "";
    }
  }

  @Test
  void aCommandThatCannotStartIsFailedWithTheReason() throws Exception {
    start();
    assertEquals(
        201,
        send("PUT", "/v1/tasks/c.0", spec("c", "process", "no-such-binary-rota")).statusCode());
    Map<String, Object> t = task("c.0");
    assertEquals("failed", t.get("state"));
    assertTrue(
        ((String) t.get("message")).contains("cannot start no-such-binary-rota"),
        (String) t.get("message"));
  }

  @Test
  void aProcessOverItsMemoryLimitIsKilledByTheKernelAndReportedSo() throws Exception {
    start();
    Needs.had(!"none".equals(isolation()), "no control groups here");
    // tail keeps the last line whole, and a stream of zeros is one line: it grows until the kernel
    // stops it.
    send(
        "PUT",
        "/v1/tasks/m.0",
        "{\"vm\":\"m\",\"runtime\":\"process\",\"command\":[\"sh\",\"-c\",\"head -c 400M /dev/zero | tail\"],"
            + "\"resources\":{\"cpu\":1,\"memory\":32}}");
    eventually(
        "ended",
        () -> {
          try {
            return !"running".equals(task("m.0").get("state"));
          } catch (Exception e) {
            return false;
          }
        });
    Map<String, Object> t = task("m.0");
    assertEquals("failed", t.get("state"), t.toString());
    assertEquals(
        "killed by the kernel for using more than its memory limit of 32 MiB", t.get("message"));
  }

  @Test
  void aProcessWithinItsLimitsRunsInItsOwnControlGroup() throws Exception {
    start();
    Needs.had(!"none".equals(isolation()), "no control groups here");
    send("PUT", "/v1/tasks/n.0", spec("n", "process", "sh", "-c", "cat /proc/self/cgroup; exit 0"));
    eventually(
        "exited",
        () -> {
          try {
            return "exited".equals(task("n.0").get("state"));
          } catch (Exception e) {
            return false;
          }
        });
    String groups = send("GET", "/v1/tasks/n.0/logs", null).body();
    assertTrue(groups.contains("/rota/test-1-"), "the task ran in the agent's groups: " + groups);
    assertTrue(groups.contains("/n.0"), "its own group: " + groups);
  }

  private String isolation() {
    Cgroups probe = Cgroups.detect("probe-" + ProcessHandle.current().pid());
    probe.removeUnheld(id -> false);
    return probe.kind().label;
  }

  @Test
  void aProcessIgnoringSigtermIsKilledAfterTheGracePeriod() throws Exception {
    start();
    send("PUT", "/v1/tasks/d.0", spec("d", "process", "sh", "-c", "trap '' TERM; sleep 304"));
    eventually(
        "running",
        () -> !processes("sleep 304").isEmpty()); // the shell and its sleep, both ignoring SIGTERM
    assertEquals(204, send("DELETE", "/v1/tasks/d.0", null).statusCode());
    eventually("killed", () -> processes("sleep 304").isEmpty());
  }

  @Test
  void aRemovalAskedAgainWhileTheFirstIsEndingTheTaskAnswersOnlyOnceItHasEnded() throws Exception {
    start("ROTA_AGENT_STOP_GRACE", "2s");
    send("PUT", "/v1/tasks/r.0", spec("r", "process", "sh", "-c", "trap '' TERM; sleep 306"));
    // The shell and its sleep: the shell forks the sleep only once its trap is set, so a SIGTERM
    // from now on is ignored, and the removal waits out the grace.
    eventually("running, ignoring SIGTERM", () -> processes("sleep 306").size() >= 2);
    java.util.concurrent.CompletableFuture<Integer> first =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return send("DELETE", "/v1/tasks/r.0", null).statusCode();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    // Until it has ended it is listed, so that a controller never takes it for gone while it still
    // runs.
    java.util.concurrent.CompletableFuture<Integer> again =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return send("DELETE", "/v1/tasks/r.0", null)
                    .statusCode(); // a caller whose first call timed out, retrying
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    int looks = 0;
    while (!first.isDone() || !again.isDone()) {
      Map<String, Object> listed = task("r.0");
      boolean aliveAfter = !processes("sleep 306").isEmpty();
      if (aliveAfter) {
        assertNotNull(listed, "listed while it ends");
        looks++;
      }
    }
    assertTrue(looks > 0, "looked while it ended");
    assertEquals(List.of(), processes("sleep 306"), "both answered only once the task had ended");
    assertEquals(204, again.get());
    assertEquals(null, task("r.0"), "forgotten once ended");
    assertEquals(204, first.get());
  }

  /** {@link #spec}, naming the VM's submission. */
  private static String specOf(long submission, String vm, String runtime, String... command) {
    String spec = spec(vm, runtime, command);
    return spec.substring(0, spec.length() - 1) + ",\"submission\":" + submission + "}";
  }

  @Test
  void aTaskIdHeldByAnotherSubmissionIsNeitherTakenForTheNewOneNorRemovedForIt() throws Exception {
    start();
    // A VM deleted while this agent could not be reached: its task is still here.
    assertEquals(
        201, send("PUT", "/v1/tasks/s.0", specOf(1, "s", "process", "sleep", "307")).statusCode());
    eventually("running", () -> !processes("sleep 307").isEmpty());
    assertEquals(1, ((Number) task("s.0").get("submission")).intValue(), "listed with its own");
    // The VM submitted again under its name, placed here: not "already there".
    HttpResponse<String> again =
        send("PUT", "/v1/tasks/s.0", specOf(2, "s", "process", "sleep", "307"));
    assertEquals(409, again.statusCode(), again.body());
    assertTrue(again.body().contains("submission 1, not 2"), again.body());
    assertEquals(
        200,
        send("PUT", "/v1/tasks/s.0", specOf(1, "s", "process", "sleep", "307")).statusCode(),
        "its own start asked again is still answered as done");
    // A removal meant for the new VM leaves the old task; the one meant for it removes it.
    assertEquals(204, send("DELETE", "/v1/tasks/s.0?submission=2", null).statusCode());
    assertEquals(1, processes("sleep 307").size(), "still there");
    assertEquals(400, send("DELETE", "/v1/tasks/s.0?submission=x", null).statusCode());
    assertEquals(204, send("DELETE", "/v1/tasks/s.0?submission=1", null).statusCode());
    assertEquals(null, task("s.0"));
    assertEquals(List.of(), processes("sleep 307"));
    assertEquals(
        201, send("PUT", "/v1/tasks/s.0", specOf(2, "s", "process", "sleep", "307")).statusCode());
    assertEquals(204, send("DELETE", "/v1/tasks/s.0", null).statusCode(), "no submission: any");
    eventually("gone", () -> processes("sleep 307").isEmpty());
  }

  @Test
  void badIdsAndUnknownRuntimesAreRefused() throws Exception {
    start();
    assertEquals(
        400, send("PUT", "/v1/tasks/..%2F..%2Fetc.0", spec("x", "process", "true")).statusCode());
    assertEquals(400, send("PUT", "/v1/tasks/UPPER.0", spec("x", "process", "true")).statusCode());
    assertEquals(400, send("PUT", "/v1/tasks/x.0", spec("x", "qemu", "true")).statusCode());
    assertEquals(400, send("PUT", "/v1/tasks/x.0", "{not json").statusCode());
    assertEquals("[]", send("GET", "/v1/tasks", null).body(), "nothing was created");
  }

  @Test
  void aRestartedAgentFindsItsRunningProcessAgain() throws Exception {
    start();
    send("PUT", "/v1/tasks/e.0", spec("e", "process", "sleep", "305"));
    // Its process starts once the task is taken, not necessarily before the answer.
    eventually("its process runs", () -> processes("sleep 305").size() == 1);
    long pid = processes("sleep 305").get(0).pid();
    agent.close();

    start();
    Map<String, Object> t = task("e.0");
    assertEquals("running", t.get("state"), "adopted");
    assertEquals(
        List.of(pid),
        processes("sleep 305").stream().map(ProcessHandle::pid).toList(),
        "the same process, not a second");
    assertEquals(204, send("DELETE", "/v1/tasks/e.0", null).statusCode());
    eventually("an adopted task can still be stopped", () -> processes("sleep 305").isEmpty());
  }

  @Test
  void aSecretsValueReachesTheProcessAndNoRecordOnDiskAcrossARestart() throws Exception {
    String value = "tok-" + Long.toHexString(System.nanoTime());
    start();
    String spec =
        "{\"vm\":\"s\",\"restartCount\":0,\"runtime\":\"process\","
            + "\"command\":[\"sh\",\"-c\",\"echo $TOKEN; exec sleep 309\"],"
            + "\"env\":{\"TOKEN\":\""
            + value
            + "\",\"MODE\":\"ci\"},\"secrets\":{\"env\":{\"TOKEN\":\"runner-token\"}}}";
    assertEquals(201, send("PUT", "/v1/tasks/s.0", spec).statusCode());
    eventually(
        "the process has the value",
        () -> {
          try {
            return send("GET", "/v1/tasks/s.0/logs", null).body().equals(value + "\n");
          } catch (Exception e) {
            return false;
          }
        });
    agent.close();
    start();
    assertEquals("running", task("s.0").get("state"), "adopted without the value on disk");
    try (java.util.stream.Stream<Path> files = Files.walk(data)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (!f.getFileName().toString().startsWith("stdout")) {
          assertEquals(
              false,
              Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1).contains(value),
              f.toString());
        }
      }
    }
    String record = Files.readString(data.resolve("tasks/s.0/task.json"));
    assertTrue(record.contains("\"MODE\":\"ci\"") && record.contains("runner-token"), record);
    assertEquals(204, send("DELETE", "/v1/tasks/s.0", null).statusCode());
  }

  @Test
  void aProcessStartedButNotYetRecordedWhenTheAgentDiedIsAdoptedNotStartedAgain() throws Exception {
    Path folder = recordedButNotStarted("g.0", "sleep", "317");
    ProcessBuilder started = new ProcessBuilder("sleep", "317");
    started.environment().put("ROTA_TASK_DIR", folder.toString());
    long pid = started.start().pid();

    start();
    assertEquals("running", task("g.0").get("state"), "adopted by its tag");
    assertEquals(
        200,
        send("PUT", "/v1/tasks/g.0", spec("g", "process", "sleep", "317")).statusCode(),
        "already there");
    assertEquals(
        List.of(pid),
        processes("sleep 317").stream().map(ProcessHandle::pid).toList(),
        "the same process, not a second");
    assertEquals(204, send("DELETE", "/v1/tasks/g.0", null).statusCode());
    eventually("an adopted task can still be stopped", () -> processes("sleep 317").isEmpty());
  }

  @Test
  void aTaskRecordedButNeverStartedIsForgottenSoThatAStartStartsIt() throws Exception {
    recordedButNotStarted("h.0", "sleep", "308");
    start();
    assertEquals(null, task("h.0"), "no process was found: not a task");
    assertEquals(
        201, send("PUT", "/v1/tasks/h.0", spec("h", "process", "sleep", "308")).statusCode());
    eventually("started", () -> processes("sleep 308").size() == 1);
    assertEquals(204, send("DELETE", "/v1/tasks/h.0", null).statusCode());
  }

  /**
   * What an agent killed between recording a task and starting its process leaves in its folder.
   */
  private Path recordedButNotStarted(String id, String... command) throws Exception {
    Path folder = Files.createDirectories(data.resolve("tasks").resolve(id));
    Map<String, Object> spec =
        Map.of(
            "vm",
            id.substring(0, id.indexOf('.')),
            "restartCount",
            0,
            "runtime",
            "process",
            "command",
            List.of(command));
    Files.writeString(
        folder.resolve("task.json"),
        json.writeValueAsString(
            Map.of("id", id, "spec", spec, "pid", 0, "processStart", "", "startedAt", "")));
    return folder;
  }

  @Test
  void syntheticTasksRunWithoutAProcessAndExitOnRequest() throws Exception {
    start();
    send(
        "PUT",
        "/v1/tasks/f.0",
        "{\"vm\":\"f\",\"runtime\":\"synthetic\",\"env\":{\"SYNTHETIC_EXIT_AFTER\":\"100ms\",\"SYNTHETIC_EXIT_CODE\":\"4\"}}");
    eventually(
        "exited",
        () -> {
          try {
            return "exited".equals(task("f.0").get("state"));
          } catch (Exception e) {
            return false;
          }
        });
    assertEquals(4, task("f.0").get("exitCode"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void taskStateChangesAreReportedToTheControllerAndRetriedWhenItCannotTakeThem() throws Exception {
    List<String> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicInteger reports =
        new java.util.concurrent.atomic.AtomicInteger();
    com.sun.net.httpserver.HttpServer controller =
        controller(
            (method, path, body) -> {
              if (path.equals("/v1/workers/test-1/tasks")) {
                // The first report meets a controller that is restarting; it must come again.
                if (reports.incrementAndGet() == 1) {
                  return 503;
                }
                delivered.add(body);
              }
              return method.equals("POST") ? 201 : 204;
            });
    try {
      start("ROTA_CONTROLLER_URL", "http://127.0.0.1:" + controller.getAddress().getPort());
      send("PUT", "/v1/tasks/g.0", "{\"vm\":\"g\",\"runtime\":\"synthetic\"}");
      // Nothing else changes while the task runs, so only a retry can bring the refused report.
      eventually(
          "the start reported, after a refusal",
          () -> delivered.stream().anyMatch(b -> b.contains("\"running\"")));
      assertTrue(reports.get() >= 2);
      assertEquals(204, send("DELETE", "/v1/tasks/g.0", null).statusCode());
      send(
          "PUT",
          "/v1/tasks/h.0",
          "{\"vm\":\"h\",\"runtime\":\"synthetic\",\"env\":{\"SYNTHETIC_EXIT_AFTER\":\"100ms\",\"SYNTHETIC_EXIT_CODE\":\"4\"}}");
      eventually(
          "the exit reported", () -> delivered.stream().anyMatch(b -> b.contains("\"exited\"")));
      Map<String, Object> last = json.readValue(delivered.get(delivered.size() - 1), Map.class);
      List<Map<String, Object>> tasks = (List<Map<String, Object>>) last.get("tasks");
      assertEquals(1, tasks.size(), last.toString());
      assertEquals("h.0", tasks.get(0).get("id"));
      assertEquals("h", tasks.get(0).get("vm"));
      assertEquals(4, tasks.get(0).get("exitCode"));
      assertTrue(
          delivered.stream().noneMatch(b -> b.contains("g.0") && b.contains("\"exited\"")),
          "a task the controller removed ends as asked; that is not reported: " + delivered);
    } finally {
      controller.stop(0);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void theImagesItsTasksRanAreSaidOnceEachTimeTheyChangeAndRememberedAcrossARestart()
      throws Exception {
    List<String> registrations = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<String> heartbeats = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean refusedOne =
        new java.util.concurrent.atomic.AtomicBoolean();
    com.sun.net.httpserver.HttpServer controller =
        controller(
            (method, path, body) -> {
              if (method.equals("POST")) {
                registrations.add(body);
                return 201;
              }
              if (path.endsWith("/heartbeat")) {
                // The first heartbeat with news meets a controller that cannot take it: the news
                // must come again.
                if (!body.isEmpty() && refusedOne.compareAndSet(false, true)) {
                  return 503;
                }
                heartbeats.add(body);
              }
              return 204;
            });
    String url = "http://127.0.0.1:" + controller.getAddress().getPort();
    try {
      start("ROTA_CONTROLLER_URL", url, "ROTA_AGENT_HEARTBEAT_INTERVAL", "50ms");
      eventually("registered", () -> registrations.size() == 1);
      assertEquals(
          List.of(),
          json.readValue(registrations.get(0), Map.class).get("images"),
          "nothing run, nothing held");
      eventually("bare heartbeats", () -> heartbeats.size() >= 2);
      assertTrue(
          heartbeats.stream().allMatch(String::isEmpty), "nothing new to say: " + heartbeats);

      send(
          "PUT",
          "/v1/tasks/i.0",
          "{\"vm\":\"i\",\"runtime\":\"synthetic\",\"image\":\"ghcr.io/acme/a:1\"}");
      eventually(
          "the image said",
          () -> heartbeats.stream().anyMatch(b -> b.contains("ghcr.io/acme/a:1")));
      assertTrue(refusedOne.get(), "after a refusal");
      int said = heartbeats.size();
      eventually("bare heartbeats again", () -> heartbeats.size() >= said + 2);
      assertEquals(
          1, heartbeats.stream().filter(b -> !b.isEmpty()).count(), "said once: " + heartbeats);
      Map<String, Object> news =
          json.readValue(
              heartbeats.stream().filter(b -> !b.isEmpty()).findFirst().orElseThrow(), Map.class);
      List<Map<String, Object>> images = (List<Map<String, Object>>) news.get("images");
      assertEquals("ghcr.io/acme/a:1", images.get(0).get("image"));
      java.time.Instant.parse((String) images.get(0).get("lastUsedAt"));
      agent.close();

      start("ROTA_CONTROLLER_URL", url, "ROTA_AGENT_HEARTBEAT_INTERVAL", "50ms");
      eventually("registered again", () -> registrations.size() == 2);
      assertEquals(
          images,
          json.readValue(registrations.get(1), Map.class).get("images"),
          "remembered on disk");
    } finally {
      controller.stop(0);
    }
  }

  /** How the stand-in controller answers a call: its status. */
  private interface Answer {
    int status(String method, String path, String body);
  }

  /**
   * A controller on loopback that answers each call as {@code answer} says, bodies unread by the
   * agent.
   */
  /**
   * Dev mode's agents share their process's threads: one closed (a worker killed) stops its
   * heartbeats and its task API, while the others go on beating and starting tasks on the same
   * threads.
   */
  @Test
  void agentsSharingThreadsGoOnWhenOneOfThemCloses() throws Exception {
    Map<String, java.util.concurrent.atomic.AtomicInteger> beats =
        new java.util.concurrent.ConcurrentHashMap<>();
    com.sun.net.httpserver.HttpServer controller =
        controller(
            (method, path, body) -> {
              if (path.endsWith("/heartbeat")) {
                beats
                    .computeIfAbsent(
                        path.split("/")[3], w -> new java.util.concurrent.atomic.AtomicInteger())
                    .incrementAndGet();
              }
              return method.equals("POST") ? 201 : 204;
            });
    AgentThreads threads = AgentThreads.sharedBy(2);
    List<Agent> agents = new java.util.ArrayList<>();
    try {
      for (String name : List.of("share-1", "share-2")) {
        Map<String, String> env = new HashMap<>();
        env.put("ROTA_CONTROLLER_URL", "http://127.0.0.1:" + controller.getAddress().getPort());
        env.put("ROTA_WORKER_NAME", name);
        env.put("ROTA_AGENT_PORT", "0");
        env.put("ROTA_AGENT_DATA_DIR", data.resolve(name).toString());
        env.put("ROTA_AGENT_HEARTBEAT_INTERVAL", "50ms");
        env.put("ROTA_WORKER_RUNTIMES", "synthetic");
        env.put("ROTA_AGENT_TLS_KEYSTORE", tls.resolve("agent.p12").toString());
        AgentConfig config = AgentConfig.from(env, new String[0]);
        agents.add(Agent.start(config, Agent.controllerHttp(config), threads));
      }
      eventually(
          "both beating", () -> beats.containsKey("share-1") && beats.containsKey("share-2"));
      agents.get(0).close();
      int closedAt = beats.get("share-1").get();
      int otherAt = beats.get("share-2").get();
      eventually("the other beating on", () -> beats.get("share-2").get() >= otherAt + 5);
      // One beat may have been under way as it closed; none after.
      assertTrue(beats.get("share-1").get() <= closedAt + 1, beats.toString());
      assertTrue(
          !threads.timers().isShutdown() && !threads.requests().isShutdown(),
          "the shared threads outlive an agent");

      agent = agents.get(1);
      http = AgentTlsTest.pinned(agent, agent.certificateSha256());
      assertEquals(
          201,
          send("PUT", "/v1/tasks/s.0", "{\"vm\":\"s\",\"runtime\":\"synthetic\"}").statusCode());
      eventually(
          "running on the shared timers",
          () -> {
            try {
              return "running".equals(task("s.0").get("state"));
            } catch (Exception e) {
              return false;
            }
          });
    } finally {
      agents.forEach(Agent::close);
      agent = null;
      threads.close();
      controller.stop(0);
    }
    assertTrue(threads.timers().isShutdown() && threads.requests().isShutdown());
  }

  /**
   * A start held up on its way (its worker cut off with the request sent, the link healed after the
   * controller gave up and placed the VM elsewhere) is refused: its deadline is judged by the
   * controller's clock, as the heartbeats' answers tell it, here an hour ahead of the agent's.
   */
  @Test
  void aStartThatComesAfterItsDeadlineOnTheControllersClockIsRefused() throws Exception {
    long ahead = java.time.Duration.ofHours(1).toMillis();
    java.util.concurrent.atomic.AtomicInteger answered =
        new java.util.concurrent.atomic.AtomicInteger();
    com.sun.net.httpserver.HttpServer controller =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    controller.createContext(
        "/",
        x -> {
          x.getRequestBody().readAllBytes();
          boolean heartbeat = x.getRequestURI().getPath().endsWith("/heartbeat");
          x.getResponseHeaders()
              .add(
                  dev.rota.agentapi.HeartbeatHeaders.CONTROLLER_TIME,
                  Long.toString(System.currentTimeMillis() + ahead));
          x.sendResponseHeaders(x.getRequestMethod().equals("POST") ? 201 : 204, -1);
          x.close();
          if (heartbeat) {
            answered.incrementAndGet();
          }
        });
    controller.start();
    try {
      start(
          "ROTA_CONTROLLER_URL",
          "http://127.0.0.1:" + controller.getAddress().getPort(),
          "ROTA_AGENT_HEARTBEAT_INTERVAL",
          "200ms");
      eventually("a heartbeat answered", () -> answered.get() >= 1);
      String spec = "{\"vm\":\"late\",\"runtime\":\"synthetic\"}";
      long controllerNow = System.currentTimeMillis() + ahead;

      // In time by the agent's own clock, a minute late by the controller's.
      HttpResponse<String> late = startBy("PUT", "/v1/tasks/late.0", spec, controllerNow - 60_000);
      assertEquals(408, late.statusCode(), late.body());
      assertTrue(late.body().contains("after the controller stopped waiting for it"), late.body());
      HttpResponse<String> batch =
          startBy(
              "POST",
              "/v1/tasks",
              "{\"items\":[{\"id\":\"late.0\",\"spec\":" + spec + "}]}",
              controllerNow - 60_000);
      assertTrue(batch.body().contains("\"status\":408"), batch.body());
      assertTrue(
          send("GET", "/v1/tasks", null).body().equals("[]"), "nothing started of a late start");

      HttpResponse<String> inTime =
          startBy("PUT", "/v1/tasks/late.0", spec, controllerNow + 60_000);
      assertEquals(201, inTime.statusCode(), inTime.body());
    } finally {
      controller.stop(0);
    }
  }

  /** A start as the controller sends it, with its deadline on the controller's clock. */
  private HttpResponse<String> startBy(String method, String path, String body, long deadline)
      throws Exception {
    return send(
        method,
        path,
        body,
        "Bearer " + agent.secret(),
        Map.of(dev.rota.agentapi.TaskStarts.START_BEFORE, Long.toString(deadline)));
  }

  private static com.sun.net.httpserver.HttpServer controller(Answer answer)
      throws java.io.IOException {
    com.sun.net.httpserver.HttpServer controller =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    controller.createContext(
        "/",
        x -> {
          String body =
              new String(
                  x.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
          x.sendResponseHeaders(
              answer.status(x.getRequestMethod(), x.getRequestURI().getPath(), body), -1);
          x.close();
        });
    // Requests at once, as a controller takes them: a report may overlap one unanswered.
    controller.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    controller.start();
    return controller;
  }

  /**
   * A report sent while another is unanswered (the controller's commit is slow) carries only what
   * changed since: no task's state goes to the controller twice.
   */
  @Test
  @SuppressWarnings("unchecked")
  void aReportThatOverlapsAnUnansweredOneLeavesOutWhatThatOneCarries() throws Exception {
    List<String> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch firstHeld = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    com.sun.net.httpserver.HttpServer controller =
        controller(
            (method, path, body) -> {
              if (path.equals("/v1/workers/test-1/tasks")) {
                delivered.add(body);
                if (delivered.size() == 1) {
                  firstHeld.countDown();
                  try {
                    release.await(30, java.util.concurrent.TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              }
              return method.equals("POST") ? 201 : 204;
            });
    try {
      start("ROTA_CONTROLLER_URL", "http://127.0.0.1:" + controller.getAddress().getPort());
      send("PUT", "/v1/tasks/p.0", "{\"vm\":\"p\",\"runtime\":\"synthetic\"}");
      assertTrue(firstHeld.await(30, java.util.concurrent.TimeUnit.SECONDS), "a first report");
      send("PUT", "/v1/tasks/q.0", "{\"vm\":\"q\",\"runtime\":\"synthetic\"}");
      eventually(
          "q's start reported while the first report waits",
          () -> delivered.stream().skip(1).anyMatch(b -> b.contains("\"q.0\"")));
      release.countDown();
      List<String> states = new java.util.ArrayList<>();
      for (String body : delivered) {
        for (Map<String, Object> t :
            (List<Map<String, Object>>) json.readValue(body, Map.class).get("tasks")) {
          states.add(t.get("id") + " " + t.get("state"));
        }
      }
      assertEquals(
          states.stream().distinct().toList(), states, "each state sent once: " + delivered);
    } finally {
      release.countDown();
      controller.stop(0);
    }
  }

  @Test
  void aWorkersPoolIsALabelAndTheDefaultPoolCarriesNone() {
    Map<String, String> env = new HashMap<>(Map.of("ROTA_CONTROLLER_URL", "http://127.0.0.1:9"));
    assertEquals(
        null,
        AgentConfig.from(env, new String[0]).labels().get(dev.rota.agentapi.WorkerPool.LABEL));
    env.put("ROTA_WORKER_POOL", "default");
    assertEquals(
        null,
        AgentConfig.from(env, new String[0]).labels().get(dev.rota.agentapi.WorkerPool.LABEL));
    env.put("ROTA_WORKER_POOL", "gpu");
    env.put("ROTA_WORKER_LABELS", "zone=a");
    assertEquals(
        Map.of("zone", "a", dev.rota.agentapi.WorkerPool.LABEL, "gpu"),
        AgentConfig.from(env, new String[0]).labels());
  }

  @Test
  void aWorkersTaintsTravelAsLabels() {
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "ROTA_CONTROLLER_URL",
                "http://127.0.0.1:9",
                "ROTA_WORKER_LABELS",
                "zone=a",
                "ROTA_WORKER_TAINTS",
                "dedicated=gpu:NoSchedule, spot:PreferNoSchedule"));
    Map<String, String> labels = AgentConfig.from(env, new String[0]).labels();
    assertEquals(
        Map.of(
            "zone",
            "a",
            "taint.rota.dev/dedicated",
            "gpu:NoSchedule",
            "taint.rota.dev/spot",
            ":PreferNoSchedule"),
        labels);
    assertEquals(
        "[dedicated=gpu:NoSchedule, spot:PreferNoSchedule]",
        dev.rota.agentapi.Taint.of(labels).toString(),
        "read back as the scheduler reads them");
  }

  @Test
  void badSettingsAreNamedInOneLine() {
    for (String[] bad :
        new String[][] {
          {"ROTA_AGENT_PORT", "seventy"},
          {"ROTA_WORKER_RESOURCES", "cpu=-1"},
          {"ROTA_WORKER_NAME", "Bad_Name"},
          {"ROTA_AGENT_HEARTBEAT_INTERVAL", "0s"},
          {"ROTA_AGENT_SYNTHETIC_START_DELAY", "-1ms"},
          {"ROTA_AGENT_TLS_CERT", "/no/such/cert.pem"},
          {"ROTA_AGENT_ADVERTISE_URL", "http://10.0.0.5:9101"},
          {"ROTA_AGENT_INSECURE_HTTP", "maybe"},
          {"ROTA_WORKER_POOL", "GPU Boxes"},
          {"ROTA_WORKER_TAINTS", "dedicated=gpu"},
          {"ROTA_WORKER_TAINTS", "dedicated=gpu:NoExecute"},
          {"ROTA_WORKER_TAINTS", "spot:NoSchedule,spot:PreferNoSchedule"},
          {"ROTA_WORKER_LABELS", "taint.rota.dev/spot=:NoSchedule"}
        }) {
      Map<String, String> env =
          new HashMap<>(Map.of("ROTA_CONTROLLER_URL", "http://127.0.0.1:9", bad[0], bad[1]));
      AgentConfig.BadSetting e =
          org.junit.jupiter.api.Assertions.assertThrows(
              AgentConfig.BadSetting.class, () -> AgentConfig.from(env, new String[0]));
      assertTrue(
          e.getMessage().startsWith(bad[0]) && !e.getMessage().contains("\n"), e.getMessage());
    }
  }
}
