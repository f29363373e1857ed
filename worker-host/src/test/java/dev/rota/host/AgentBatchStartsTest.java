package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.Agent;
import dev.rota.agent.config.AgentConfig;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskStarts;
import dev.rota.scheduler.agents.HttpAgentClient;
import dev.rota.store.AgentAddress;
import io.micronaut.context.ApplicationContext;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler's starts and a deletion's removals in one call, against a real agent, and against
 * an agent that takes no batch, which is then asked task by task.
 */
class AgentBatchStartsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  @TempDir Path data;

  private static TaskStarts.Item item(String vm, String runtime) {
    return new TaskStarts.Item(
        vm + ".0", new TaskSpec(vm, 0, runtime, null, List.of("run"), Map.of(), Map.of(), null));
  }

  /** The client's JSON, from a context of the agents' package alone, shared by both tests. */
  private static ApplicationContext context;

  @org.junit.jupiter.api.BeforeAll
  static void start() {
    context = ApplicationContext.builder().packages("dev.rota.scheduler.agents").start();
  }

  @org.junit.jupiter.api.AfterAll
  static void stop() {
    context.close();
  }

  /** A real agent on loopback offering {@code runtimes}, working in the test's folder. */
  private Agent agent(String name, String runtimes) {
    return Agent.start(
        AgentConfig.from(
            Map.of(
                "ROTA_CONTROLLER_URL",
                "http://127.0.0.1:9",
                "ROTA_WORKER_NAME",
                name,
                "ROTA_AGENT_PORT",
                "0",
                "ROTA_WORKER_RUNTIMES",
                runtimes,
                "ROTA_AGENT_SECRET",
                "a-secret-for-this-test-only",
                "ROTA_AGENT_DATA_DIR",
                data.toString()),
            new String[0]));
  }

  private static AgentAddress address(Agent agent) {
    return new AgentAddress(
        "https://127.0.0.1:" + agent.port(), agent.secret(), agent.certificateSha256());
  }

  private static HttpAgentClient client(ApplicationContext context) {
    return new HttpAgentClient(context.getBean(io.micronaut.serde.ObjectMapper.class));
  }

  /**
   * The controller's client lists a qemu worker's persistent disks and deletes one; the disks are
   * as an earlier run of the agent left them, found again at its start.
   */
  @Test
  void aRealAgentListsTheDisksItHoldsAndDeletesOne() throws Exception {
    dev.rota.testing.TestGuest.get(); // QEMU, which the qemu runtime looks for
    for (String id : List.of("gone-5", "kept-6")) {
      Path dir = java.nio.file.Files.createDirectories(data.resolve("disks").resolve(id));
      java.nio.file.Files.write(dir.resolve("disk.qcow2"), new byte[512]);
      java.nio.file.Files.writeString(
          dir.resolve("disk.json"),
          "{\"id\":\"" + id + "\",\"image\":\"file:///d.qcow2\",\"sha256\":\"ab\"}");
    }
    try (Agent agent = agent("disks", "qemu")) {
      AgentAddress address = address(agent);
      HttpAgentClient client = client(context);
      assertEquals(
          List.of(
              new dev.rota.agentapi.HeldDisk("gone-5", "file:///d.qcow2", 512),
              new dev.rota.agentapi.HeldDisk("kept-6", "file:///d.qcow2", 512)),
          client.disks(address, TIMEOUT).stream()
              .sorted(java.util.Comparator.comparing(dev.rota.agentapi.HeldDisk::id))
              .toList());
      client.deleteDisk(address, "gone-5", TIMEOUT);
      assertEquals(
          List.of("kept-6"),
          client.disks(address, TIMEOUT).stream().map(dev.rota.agentapi.HeldDisk::id).toList());
      assertTrue(!java.nio.file.Files.exists(data.resolve("disks/gone-5")), "its folder is gone");
      client.deleteDisk(address, "gone-5", TIMEOUT); // gone already: no refusal

      // A disk's files are lent, over the agent's pinned HTTPS, to a token for that disk alone.
      long inAMinute = java.time.Instant.now().plusSeconds(60).getEpochSecond();
      String token = dev.rota.agentapi.DiskToken.mint(agent.secret(), "kept-6", inAMinute);
      assertEquals(200, diskFile(agent, "kept-6", "disk.qcow2", token).statusCode());
      assertEquals(512, diskFile(agent, "kept-6", "disk.qcow2", token).body().length);
      assertEquals(401, diskFile(agent, "kept-6", "disk.qcow2", null).statusCode(), "no token");
      Map<String, String> refused =
          Map.of(
              "another disk's token",
              dev.rota.agentapi.DiskToken.mint(agent.secret(), "gone-5", inAMinute),
              "an expired token",
              dev.rota.agentapi.DiskToken.mint(agent.secret(), "kept-6", inAMinute - 120),
              "a token another agent's secret signed",
              dev.rota.agentapi.DiskToken.mint("another-agents-secret!", "kept-6", inAMinute));
      for (Map.Entry<String, String> r : refused.entrySet()) {
        assertEquals(
            401, diskFile(agent, "kept-6", "disk.qcow2", r.getValue()).statusCode(), r.getKey());
      }
      assertEquals(404, diskFile(agent, "kept-6", "memory.state", token).statusCode());
    }
  }

  /** {@code GET /v1/disks/{id}/files/{name}} on {@code agent}, showing {@code token} if any. */
  private static java.net.http.HttpResponse<byte[]> diskFile(
      Agent agent, String id, String name, String token) throws Exception {
    dev.rota.agentapi.PinnedCertificates pins = new dev.rota.agentapi.PinnedCertificates();
    pins.expect("127.0.0.1:" + agent.port(), agent.certificateSha256());
    java.net.http.HttpRequest.Builder get =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(
                    "https://127.0.0.1:" + agent.port() + "/v1/disks/" + id + "/files/" + name))
            .GET();
    if (token != null) {
      get.header("Authorization", "Bearer " + token);
    }
    return java.net.http.HttpClient.newBuilder()
        .sslContext(pins.context())
        .build()
        .send(get.build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void aRealAgentStartsABatchAndSaysWhichItRefused() {
    try (Agent agent = agent("batch", "synthetic")) {
      AgentAddress address = address(agent);
      List<TaskStarts.Outcome> outcomes =
          client(context)
              .startTasks(
                  address,
                  List.of(item("a", "synthetic"), item("b", "qemu"), item("c", "synthetic")),
                  TIMEOUT);

      assertEquals(List.of(201, 400, 201), outcomes.stream().map(o -> o.status()).toList());
      assertTrue(
          outcomes.get(1).detail().startsWith("POST /v1/tasks answered 400 for b.0: runtime qemu"),
          outcomes.get(1).detail());
      assertEquals(
          List.of("a.0", "c.0"),
          client(context).probe(address, TIMEOUT).tasks().stream()
              .map(t -> t.id())
              .sorted()
              .toList());
    }
  }

  @Test
  void anAgentThatTakesNoBatchIsAskedTaskByTask() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    List<String> deadlines = new CopyOnWriteArrayList<>();
    HttpServer older = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    older.createContext(
        "/v1/tasks",
        x -> {
          calls.add(x.getRequestMethod() + " " + x.getRequestURI().getPath());
          deadlines.add(x.getRequestHeaders().getFirst(TaskStarts.START_BEFORE));
          x.getRequestBody().readAllBytes();
          int status =
              x.getRequestMethod().equals("POST")
                  ? 405
                  : x.getRequestURI().getPath().endsWith("/b.0") ? 400 : 201;
          x.sendResponseHeaders(status, -1);
          x.close();
        });
    older.start();
    try {
      long before = System.currentTimeMillis();
      List<TaskStarts.Outcome> outcomes =
          client(context)
              .startTasks(
                  new AgentAddress(
                      "http://127.0.0.1:" + older.getAddress().getPort(), "a-secret-of-twenty-c"),
                  List.of(item("a", "process"), item("b", "process")),
                  TIMEOUT);

      assertEquals(List.of(201, 400), outcomes.stream().map(o -> o.status()).toList());
      assertEquals(List.of("POST /v1/tasks", "PUT /v1/tasks/a.0", "PUT /v1/tasks/b.0"), calls);
      long after = System.currentTimeMillis();
      for (String deadline : deadlines) {
        long at = Long.parseLong(deadline);
        assertTrue(
            at >= before + TIMEOUT.toMillis() && at <= after + TIMEOUT.toMillis(),
            "each start says when its call gives up (its timeout from when it was sent): "
                + deadlines);
      }
    } finally {
      older.stop(0);
    }
  }

  @Test
  void aRealAgentRemovesDeletedVmsTasksInOneCall() {
    try (Agent agent = agent("removals", "synthetic")) {
      AgentAddress address = address(agent);
      HttpAgentClient client = client(context);
      client.startTasks(
          address,
          List.of(item("a", "synthetic"), item("b", "synthetic"), item("c", "synthetic")),
          TIMEOUT);

      client.removeDeleted(
          address,
          new dev.rota.agentapi.TaskRemovals(
              List.of(
                  new dev.rota.agentapi.TaskRemovals.Task("a.0", null),
                  new dev.rota.agentapi.TaskRemovals.Task("b.0", null)),
              List.of("a", "b")),
          TIMEOUT);

      assertEquals(
          List.of("c.0"),
          client.probe(address, TIMEOUT).tasks().stream().map(t -> t.id()).toList());
    }
  }

  @Test
  void anAgentThatTakesNoBatchOfRemovalsIsAskedCallByCall() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    HttpServer older = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    com.sun.net.httpserver.HttpHandler answer =
        x -> {
          calls.add(x.getRequestMethod() + " " + x.getRequestURI());
          x.getRequestBody().readAllBytes();
          x.sendResponseHeaders(204, -1);
          x.close();
        };
    older.createContext("/v1/tasks", answer);
    older.createContext("/v1/logs", answer);
    older.start();
    try {
      client(context)
          .removeDeleted(
              new AgentAddress(
                  "http://127.0.0.1:" + older.getAddress().getPort(), "a-secret-of-twenty-c"),
              new dev.rota.agentapi.TaskRemovals(
                  List.of(new dev.rota.agentapi.TaskRemovals.Task("a.0", 7L)), List.of("a")),
              TIMEOUT);

      assertEquals(
          List.of("DELETE /v1/tasks/a.0?submission=7&logs=discard", "DELETE /v1/logs/a"), calls);
    } finally {
      older.stop(0);
    }
  }
}
