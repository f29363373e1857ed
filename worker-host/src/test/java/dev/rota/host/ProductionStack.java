package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Rota as production runs it, on this machine: the real Temporal server (the CLI's), PostgreSQL,
 * any number of {@code rota.jar} hosts with auth on, and {@code rota-agent.jar} agents with worker
 * tokens, each its own process. Agent {@code i} talks to host {@code i % hosts} first, and knows
 * every host.
 */
final class ProductionStack implements AutoCloseable {
  final RealServices.Temporal temporal;
  final String adminToken = "it-admin-" + UUID.randomUUID();
  private final Path dir;
  private final List<JarProcess> hosts = new ArrayList<>();
  private final List<Integer> hostPorts = new ArrayList<>();
  private final List<JarProcess> agents = new ArrayList<>();

  /** Where the hosts listen, and agents and tests reach them. */
  private String hostAddress = "127.0.0.1";

  private Path apiCertificate;
  private final WorkflowServiceStubs stubs;
  final WorkflowClient temporalClient;

  private ProductionStack(RealServices.Temporal temporal, Path dir) {
    this.temporal = temporal;
    this.dir = dir;
    this.stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    this.temporalClient =
        WorkflowClient.newInstance(
            stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
  }

  /**
   * Starts the services, {@code hostCount} hosts (each waited for) and {@code agentCount} agents
   * (waited for until every worker is ready). {@code settings} are extra environment for the hosts.
   */
  static ProductionStack start(
      Path dir, int hostCount, int agentCount, Map<String, String> settings) throws Exception {
    return start(dir, hostCount, agentCount, settings, RealServices.newPostgresDatabase());
  }

  /** {@link #start(Path, int, int, Map)} on the database at this JDBC URL. */
  static ProductionStack start(
      Path dir, int hostCount, int agentCount, Map<String, String> settings, String database)
      throws Exception {
    return start(dir, hostCount, agentCount, settings, database, false);
  }

  /**
   * With {@code https}, the hosts' API serves HTTPS with a certificate made here (keytool:
   * self-signed, for 127.0.0.1), the agents trust it by {@code ROTA_CONTROLLER_CA}, and {@link
   * #admin} does too.
   */
  static ProductionStack start(
      Path dir,
      int hostCount,
      int agentCount,
      Map<String, String> settings,
      String database,
      boolean https)
      throws Exception {
    return start(
        dir,
        hostCount,
        java.util.Collections.nCopies(agentCount, AgentPlace.LOOPBACK),
        settings,
        database,
        https,
        "127.0.0.1",
        RealServices::temporal);
  }

  /**
   * {@link #start(Path, int, int, Map)} on Temporal's own server as a production deployment runs it
   * ({@link RealServices#temporalServer}: several history shards, on PostgreSQL) instead of the
   * CLI's dev server.
   */
  static ProductionStack onTemporalServer(
      Path dir, int hostCount, int agentCount, Map<String, String> settings) throws Exception {
    return start(
        dir,
        hostCount,
        java.util.Collections.nCopies(agentCount, AgentPlace.LOOPBACK),
        settings,
        RealServices.newPostgresDatabase(),
        false,
        "127.0.0.1",
        RealServices::temporalServer);
  }

  /**
   * Where an agent runs: beside the hosts on loopback, or in a network namespace, listening on an
   * address of it.
   */
  record AgentPlace(String namespace, String address, Map<String, String> settings) {
    static final AgentPlace LOOPBACK = new AgentPlace(null, "127.0.0.1");

    AgentPlace(String namespace, String address) {
      this(namespace, address, Map.of());
    }
  }

  /** A Temporal server for a stack, started for it. */
  interface TemporalStart {
    RealServices.Temporal start() throws IOException;
  }

  /**
   * Hosts listening on {@code hostAddress} (plain HTTP off loopback needs {@code
   * ROTA_API_INSECURE_HTTP} in {@code settings}) on the Temporal server {@code temporalStart}
   * starts, and an agent for each of {@code agents}, worker {@code w<i+1>}.
   */
  static ProductionStack start(
      Path dir,
      int hostCount,
      List<AgentPlace> agents,
      Map<String, String> settings,
      String database,
      boolean https,
      String hostAddress,
      TemporalStart temporalStart)
      throws Exception {
    int agentCount = agents.size();
    RealServices.Temporal temporal = temporalStart.start();
    ProductionStack stack = new ProductionStack(temporal, dir);
    stack.hostAddress = hostAddress;
    try {
      Map<String, String> hostSettings = new HashMap<>(settings);
      if (https) {
        stack.apiCertificate = apiCertificate(dir);
        hostSettings.put("ROTA_API_TLS_KEYSTORE", dir.resolve("api.p12").toString());
        hostSettings.put("ROTA_API_TLS_KEYSTORE_PASSWORD", API_KEYSTORE_PASSWORD);
      }
      for (int i = 0; i < hostCount; i++) {
        int host = i;
        JarProcess.onFreePorts(
            () -> {
              int port = FreePorts.next();
              // The tests' clients, however many users they play, share the admin's token: its
              // rate would refuse them (the rate is ManyClientsIT's to test).
              Map<String, String> env =
                  new HashMap<>(
                      Map.of("ROTA_API_RATE_LIMIT", "10000", "ROTA_API_RATE_BURST", "10000"));
              env.putAll(hostSettings);
              env.put("TEMPORAL_ADDRESS", temporal.address());
              env.put("DATASOURCES_DEFAULT_URL", database);
              env.put("DATASOURCES_DEFAULT_USERNAME", "rota");
              env.put("MICRONAUT_SERVER_HOST", hostAddress);
              env.put("MICRONAUT_SERVER_PORT", String.valueOf(port));
              env.put("ROTA_BOOTSTRAP_ADMIN_TOKEN", stack.adminToken);
              stack.hosts.add(
                  JarProcess.host("host-" + (host + 1), env, dir).start().awaitOutput("  Auth "));
              stack.hostPorts.add(port);
              return port;
            });
      }
      for (int i = 0; i < agentCount; i++) {
        stack.startAgent("w" + (i + 1), i % hostCount, agents.get(i));
      }
      eventually(
          "every worker ready",
          () ->
              stack.admin(0).items("/v1/workers").stream()
                      .filter(w -> "ready".equals(w.get("health")))
                      .count()
                  == agentCount);
      return stack;
    } catch (Throwable t) {
      stack.close();
      throw t;
    }
  }

  private void startAgent(String worker, int host, AgentPlace place) throws Exception {
    RotaClient.Reply account =
        admin(host)
            .api(
                "POST",
                "/v1/service-accounts",
                "{\"name\":\"agent-"
                    + worker
                    + "\",\"roles\":[\"worker\"],\"worker\":\""
                    + worker
                    + "\"}");
    assertEquals(201, account.status(), account.body());
    Path data = Files.createDirectories(dir.resolve("agent-" + worker));
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "ROTA_CONTROLLER_URL",
                controllerUrls(host),
                "ROTA_WORKER_NAME",
                worker,
                "ROTA_AGENT_PORT",
                String.valueOf(FreePorts.next()),
                "ROTA_AGENT_TOKEN",
                (String) account.map().get("token"),
                "ROTA_AGENT_DATA_DIR",
                data.toString(),
                "ROTA_WORKER_RESOURCES",
                "cpu=1000,memory=1000000",
                "ROTA_AGENT_HEARTBEAT_INTERVAL",
                "1s",
                "ROTA_AGENT_STOP_GRACE",
                "2s"));
    env.put("ROTA_AGENT_LISTEN", place.address());
    env.putAll(place.settings());
    if (apiCertificate != null) {
      env.put("ROTA_CONTROLLER_CA", apiCertificate.toString());
    }
    JarProcess agent =
        place.namespace() == null
            ? JarProcess.agent("agent-" + worker, env, dir)
            : JarProcess.agentIn(place.namespace(), "agent-" + worker, env, dir);
    agents.add(agent.start().awaitOutput("serving"));
  }

  /**
   * Every host's URL, host {@code first} first: an agent talks to it, and to the next ones when it
   * stops answering.
   */
  private String controllerUrls(int first) {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < hostPorts.size(); i++) {
      urls.add(
          scheme() + "://" + hostAddress + ":" + hostPorts.get((first + i) % hostPorts.size()));
    }
    return String.join(",", urls);
  }

  /**
   * A new folder for one test's processes (their output, the agents' tasks) under {@code
   * target/it}, kept after the test so that a failure can be read from the logs there.
   */
  static Path folder(String test) throws java.io.IOException {
    Path it = Files.createDirectories(Path.of("target", "it").toAbsolutePath());
    return Files.createTempDirectory(it, test + "-");
  }

  /**
   * The API of host {@code i} with the admin's token (trusting its certificate, when it serves
   * HTTPS).
   */
  RotaClient admin(int i) {
    return new RotaClient(
        scheme() + "://" + hostAddress + ":" + hostPorts.get(i),
        adminToken,
        apiCertificate == null
            ? null
            : dev.rota.agent.link.TrustedCertificates.only(
                apiCertificate, "the API's certificate"));
  }

  /** Host {@code i}'s API address. */
  String apiUrl(int i) {
    return scheme() + "://" + hostAddress + ":" + hostPorts.get(i);
  }

  /** The folder of the stack's processes. */
  Path dir() {
    return dir;
  }

  /** The certificate (PEM) the hosts' API serves HTTPS with; null for plain HTTP. */
  Path apiCertificate() {
    return apiCertificate;
  }

  private String scheme() {
    return apiCertificate == null ? "http" : "https";
  }

  private static final String API_KEYSTORE_PASSWORD = "it-api-keystore-password";

  /**
   * A key and a self-signed certificate for 127.0.0.1 in {@code dir/api.p12}; the certificate as
   * PEM.
   */
  private static Path apiCertificate(Path dir) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Path store = dir.resolve("api.p12");
    Path pem = dir.resolve("api.pem");
    run(
        keytool.toString(),
        "-genkeypair",
        "-alias",
        "api",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-validity",
        "30",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=ip:127.0.0.1,dns:localhost",
        "-keystore",
        store.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        API_KEYSTORE_PASSWORD,
        "-keypass",
        API_KEYSTORE_PASSWORD);
    run(
        keytool.toString(),
        "-exportcert",
        "-rfc",
        "-alias",
        "api",
        "-keystore",
        store.toString(),
        "-storepass",
        API_KEYSTORE_PASSWORD,
        "-file",
        pem.toString());
    return pem;
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + said);
    }
  }

  /**
   * Settings for the fault tests: a term each second, a silent worker lost after 4 s and offline
   * after 6 s, plain HTTP for the tests' own calls.
   */
  static final Map<String, String> QUICK_TO_LOSE_WORKERS =
      Map.of(
          "ROTA_SCHEDULER_INTERVAL",
          "1s",
          "ROTA_WORKERS_LOST_AFTER",
          "4s",
          "ROTA_WORKERS_OFFLINE_AFTER",
          "6s",
          "ROTA_API_INSECURE_HTTP",
          "true");

  JarProcess host(int i) {
    return hosts.get(i);
  }

  /** Agent {@code i}'s process: worker {@code w(i+1)}. */
  JarProcess agent(int i) {
    return agents.get(i);
  }

  int hostCount() {
    return hosts.size();
  }

  /**
   * The host whose process has this pid (Temporal's worker identity is {@code pid@hostname}); -1 if
   * none.
   */
  int hostWithPid(long pid) {
    for (int i = 0; i < hosts.size(); i++) {
      if (hosts.get(i).alive() && hosts.get(i).pid() == pid) {
        return i;
      }
    }
    return -1;
  }

  /** The id of the workflow's latest run. */
  String runId(String workflowId) {
    return temporalClient.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId();
  }

  /** Starts host {@code i} again, on its port and settings, and waits for its banner. */
  void restartHost(int i) throws Exception {
    hosts.get(i).start().awaitOutput("  Auth ");
  }

  /** Ends the agents' tasks too: tasks outlive their agents, as on a real machine. */
  @Override
  public void close() throws Exception {
    for (JarProcess host : hosts) {
      host.close();
    }
    List<ProcessHandle> tasks =
        agents.stream()
            .filter(JarProcess::alive)
            .flatMap(a -> ProcessHandle.of(a.pid()).stream())
            .flatMap(ProcessHandle::descendants)
            .toList();
    for (JarProcess agent : agents) {
      agent.close();
    }
    tasks.forEach(ProcessHandle::destroyForcibly);
    stubs.shutdownNow();
    temporal.close();
  }
}
