package dev.rota.bench;

import dev.rota.agent.Agent;
import dev.rota.agent.AgentThreads;
import dev.rota.agent.config.AgentConfig;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Rota as production runs it, under load: the real Temporal server ({@code .ci/temporal}),
 * PostgreSQL ({@code .ci/postgres}), {@code bench.hosts} hosts (default 2), each a process of its
 * own with auth on, and the synthetic agents in this JVM, each with its own worker token,
 * heartbeating to host {@code i % hosts} first and knowing every host. The hosts' own CPU and
 * memory are read from /proc, apart from the agents', the Temporal server's and PostgreSQL's; what
 * each host did (workflow tasks, activities, requests served) from its {@code /metrics}.
 *
 * <pre>java -Dbench.hosts=2 -cp bench/target/rota-bench.jar dev.rota.bench.HostsHarness 1000x10000
 * </pre>
 *
 * A burst is one VM set of that many replicas, sent to the first host; {@code -Dbench.batch=1000}
 * sends the VMs in batches instead, each to the next host in turn, and {@code -Dbench.batch=1} one
 * {@code POST /v1/vms} per VM, from {@code -Dbench.clients} (8) threads. {@code WORKERSxVMSxBURSTS}
 * gives the hosts that many bursts, each deleted before the next. A host's JVM takes the options
 * {@code bin/rota} gives it ({@link #LAUNCHER_OPTIONS}), then {@code -Dbench.host-opts="-Xmx1g"},
 * which may override them; {@code -Drota.…=…} settings go to the hosts as they are. {@code
 * -Dbench.dump=DIR} writes each burst's VMs' times to {@code DIR/burst-N.csv}.
 */
public final class HostsHarness {
  private static final int HOSTS = Integer.getInteger("bench.hosts", 2);
  private static final int BATCH = Integer.getInteger("bench.batch", 0);

  /**
   * {@code -Dbench.temporal=server}: Temporal's own server ({@code .ci/temporal-server}, several
   * history shards, on the harness's PostgreSQL) instead of the CLI's dev server.
   */
  private static final boolean TEMPORAL_SERVER =
      "server".equals(System.getProperty("bench.temporal"));

  private static final boolean OWN_THREADS =
      "own".equals(System.getProperty("bench.agent-threads"));

  /** {@code -Dbench.dump=DIR}: each VM's creation, placing and start, from the burst's start. */
  private static final String DUMP = System.getProperty("bench.dump");

  /** What {@code bin/rota} starts a host's JVM with: C1 alone, the heap given back. */
  static final String LAUNCHER_OPTIONS = "-XX:TieredStopAtLevel=1";

  private static final Path ROOT = Path.of("").toAbsolutePath();

  /**
   * {@code -Dbench.live-heap=true}: each host's heap after a full collection, after each burst (a
   * leak check); the collection it forces changes what the next burst starts from.
   */
  private static final boolean LIVE_HEAP = Boolean.getBoolean("bench.live-heap");

  /** {@code -Dbench.clients=N}: the client threads that send the requests of a burst. */
  private static final int CLIENT_THREADS = Integer.getInteger("bench.clients", 8);

  private static final Duration IDLE = Duration.ofSeconds(30);

  /**
   * What each host did, from its {@code /metrics}: a series (with a label it must have, or "")
   * summed over its labels.
   */
  private record Work(String name, String series, String having) {}

  private static final List<Work> WORK =
      List.of(
          new Work("workflowTasks", "temporal_workflow_task_execution_latency_seconds_count", ""),
          new Work(
              "vmWorkflowTasks",
              "temporal_workflow_task_execution_latency_seconds_count",
              "workflow_type=\"VmWorkflow\""),
          new Work("activities", "temporal_activity_execution_latency_seconds_count", ""),
          new Work(
              "workflowStarts",
              "temporal_request_latency_seconds_count",
              "operation=\"StartWorkflowExecution\""),
          new Work("placements", "rota_placements_total", ""));

  private final String adminToken = "bench-admin-" + UUID.randomUUID();
  private final HarnessApi calls = new HarnessApi(adminToken);
  private final List<Process> hosts = new ArrayList<>();
  private final List<String> apis = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    try {
      String[] p = (args.length == 0 ? "100x1000" : args[0]).split("x");
      HostsHarness harness = new HostsHarness();
      List<Map<String, Object>> runs =
          harness.run(
              Integer.parseInt(p[0]),
              Integer.parseInt(p[1]),
              p.length > 2 ? Integer.parseInt(p[2]) : 1);
      Path out =
          Path.of("bench/target/hosts-" + Instant.now().toString().replace(':', '-') + ".json");
      Files.createDirectories(out.getParent());
      Map<String, Object> all = new LinkedHashMap<>();
      all.put("machine", LoadHarness.machine());
      all.put("hosts", HOSTS);
      all.put("temporal", TEMPORAL_SERVER ? "server" : "cli");
      all.put(
          "hostOptions",
          (LAUNCHER_OPTIONS + " " + System.getProperty("bench.host-opts", "")).strip());
      all.put("runs", runs);
      Files.writeString(out, harness.calls.json(all));
      System.out.println("JSON: " + out.toAbsolutePath());
      System.exit(0);
    } catch (Exception | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  List<Map<String, Object>> run(int workers, int vms, int bursts) throws Exception {
    // PostgreSQL's own user, when this runs as root, must reach its folder inside.
    Path dir =
        Files.createTempDirectory(
            "rota-hosts",
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x")));
    Path pg = dir.resolve("postgres");
    Path temporalDir = dir.resolve("temporal");
    List<Agent> agents = new ArrayList<>();
    AgentThreads threads = AgentThreads.sharedBy(workers);
    WorkflowServiceStubs stubs = null;
    try {
      String database = script(".ci/postgres", "start", pg.toString());
      String temporalAddress =
          TEMPORAL_SERVER
              ? script(".ci/temporal-server", "start", temporalDir.toString(), database)
              : script(".ci/temporal", "start", temporalDir.toString());
      long postgresPid =
          Long.parseLong(Files.readAllLines(pg.resolve("data/postmaster.pid")).get(0).strip());
      long temporalPid = Long.parseLong(Files.readString(temporalDir.resolve("pid")).strip());
      for (int i = 0; i < HOSTS; i++) {
        startHost(i, dir, database, temporalAddress);
      }
      startAgents(workers, dir, agents, threads);
      HarnessApi.await(
          "all agents ready",
          () -> calls.count(apis.get(0), "workers", "ready") == workers,
          Duration.ofMinutes(5));
      System.out.printf(
          "== %d hosts, %d workers x %d VMs%s; hosts %s%n",
          HOSTS, workers, vms, bursts == 1 ? "" : " x " + bursts + " bursts", apis);
      stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporalAddress).build());
      WorkflowClient temporal =
          WorkflowClient.newInstance(
              stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
      Set<String> clusterRuns = new HashSet<>();
      List<Map<String, Object>> results = new ArrayList<>();
      for (int burst = 1; burst <= bursts; burst++) {
        if (burst > 1) {
          results.get(results.size() - 1).putAll(deleteAll(vms, agents, temporal));
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("hosts", HOSTS);
        r.put("workers", workers);
        r.put("vms", vms);
        r.put("burst", burst);
        r.put("batch", BATCH == 0 ? "set" : BATCH);
        r.put("clientThreads", CLIENT_THREADS);
        burst(r, vms, database, temporal, clusterRuns, temporalPid, postgresPid);
        results.add(r);
      }
      return results;
    } finally {
      for (int i = 0; i < apis.size(); i++) {
        // What each host counted, kept beside its output.
        try {
          Files.writeString(
              dir.resolve("host-" + (i + 1) + ".metrics"), calls.text(apis.get(i) + "/metrics"));
        } catch (IOException e) {
          // that host is gone; its output says why
        }
      }
      agents.forEach(Agent::close);
      threads.close();
      for (Process host : hosts) {
        host.destroy();
        host.waitFor();
      }
      if (stubs != null) {
        stubs.shutdownNow();
      }
      script(
          TEMPORAL_SERVER ? ".ci/temporal-server" : ".ci/temporal", "stop", temporalDir.toString());
      script(".ci/postgres", "stop", pg.toString());
      System.out.println("hosts' output kept in " + dir);
    }
  }

  private void burst(
      Map<String, Object> r,
      int vms,
      String database,
      WorkflowClient temporal,
      Set<String> clusterRuns,
      long temporalPid,
      long postgresPid)
      throws Exception {
    String watch = apis.get(apis.size() - 1);
    clusterRuns.add(LoadHarness.clusterRun(temporal));
    List<Map<String, Double>> workBefore = work();
    long[] hostTicks = hostTicks();
    long serverTicks = ProcStat.ticks(temporalPid);
    long postgresTicks = ProcStat.ticksWithDescendants(postgresPid);
    long ownCpu = LoadHarness.processCpuNanos();
    Instant start = Instant.now();
    submit(vms);
    Instant submitted = Instant.now();
    long[] lastSaid = {System.nanoTime()};
    HarnessApi.await(
        "all running",
        () -> {
          Map<String, Number> counts = calls.vmCounts(watch).orElse(Map.of());
          long running = counts.getOrDefault("running", 0).longValue();
          if (System.nanoTime() - lastSaid[0] > 10_000_000_000L) {
            lastSaid[0] = System.nanoTime();
            System.out.printf("  %s at %s%n", counts, seconds(start, Instant.now()));
          }
          return running == vms;
        },
        Duration.ofMinutes(15),
        HarnessApi.ALL_RUNNING_POLL);
    Instant allRunning = Instant.now();
    System.out.printf("  all running at %s%n", seconds(start, allRunning));
    long[] hostTicksRunning = hostTicks();
    long serverTicksRunning = ProcStat.ticks(temporalPid);
    long postgresTicksRunning = ProcStat.ticksWithDescendants(postgresPid);
    long ownCpuRunning = LoadHarness.processCpuNanos();
    HarnessApi.await(
        "every VM's workflow started",
        () -> owedWorkflowStarts(database) == 0,
        Duration.ofMinutes(15));
    Instant workflowsStarted = Instant.now();
    System.out.printf("  every workflow started at %s%n", seconds(start, workflowsStarted));
    // A started workflow's first task is still to run: the hosts' and the server's work for it is
    // counted until every new VM workflow has run one.
    HarnessApi.await(
        "every VM's workflow ran its first task",
        () -> {
          try {
            return minus(work(), workBefore).stream().mapToLong(w -> w.get("vmWorkflowTasks")).sum()
                >= vms;
          } catch (Exception e) {
            return false;
          }
        },
        Duration.ofMinutes(15),
        Duration.ofSeconds(5));
    Instant workflowsRan = Instant.now();
    r.put("submitSeconds", seconds(start, submitted));
    r.put("allRunningSeconds", seconds(start, allRunning));
    r.put("workflowsStartedSeconds", seconds(start, workflowsStarted));
    r.put("workflowsRanSeconds", seconds(start, workflowsRan));
    r.put("submitsRetriedAfter429Or503", calls.refusedForNow.getAndSet(0));
    // CPU per VM up to all running, and up to every VM's workflow having run its first task (a VM's
    // workflow starts once it runs, so most of the Temporal server's work comes after all ran).
    Map<String, Object> toRunning = new LinkedHashMap<>();
    toRunning.put("hosts", perVm(minus(hostTicksRunning, hostTicks), vms));
    toRunning.put("temporalServer", perVm(serverTicksRunning - serverTicks, vms));
    toRunning.put("postgres", perVm(postgresTicksRunning - postgresTicks, vms));
    toRunning.put("agentsAndHarness", Math.round((ownCpuRunning - ownCpu) / 1e5 / vms) / 10.0);
    r.put("cpuMillisPerVmToAllRunning", toRunning);
    Map<String, Object> toRan = new LinkedHashMap<>();
    toRan.put("hosts", perVm(minus(hostTicks(), hostTicks), vms));
    toRan.put("temporalServer", perVm(ProcStat.ticks(temporalPid) - serverTicks, vms));
    toRan.put("postgres", perVm(ProcStat.ticksWithDescendants(postgresPid) - postgresTicks, vms));
    toRan.put(
        "agentsAndHarness",
        Math.round((LoadHarness.processCpuNanos() - ownCpu) / 1e5 / vms) / 10.0);
    r.put("cpuMillisPerVmToWorkflowsRan", toRan);
    List<Long> peak = new ArrayList<>();
    List<Long> rss = new ArrayList<>();
    for (Process host : hosts) {
      peak.add(ProcStat.peakRssMiB(host.pid()));
      rss.add(ProcStat.rssMiB(host.pid()));
    }
    r.put("hostPeakRssMiB", peak);
    r.put("hostRssMiB", rss);
    r.put("temporalServerPeakRssMiB", ProcStat.peakRssMiB(temporalPid));
    r.put("temporalServerRssMiB", ProcStat.rssMiB(temporalPid));
    long postgres = ProcStat.pssMiBWithDescendants(postgresPid);
    r.put("postgresPssMiB", postgres);
    r.put(
        "controlPlaneMiB",
        rss.stream().mapToLong(Long::longValue).sum() + ProcStat.rssMiB(temporalPid) + postgres);
    if (LIVE_HEAP) {
      // After the resident memory is read: the collection it forces leaves the heap compacted.
      List<Long> live = new ArrayList<>();
      for (Process host : hosts) {
        live.add(LiveHeap.afterFullGcMiB(host.pid()));
      }
      r.put("hostLiveHeapMiB", live);
    }
    r.put("workByHost", minus(work(), workBefore));
    // What keeping this cluster costs with nothing to do (agents' heartbeats, terms, probes): the
    // floor under the figures above, which the longer workflow phase pays for longer.
    long[] idleFrom = hostTicks();
    long serverIdleFrom = ProcStat.ticks(temporalPid);
    Thread.sleep(IDLE.toMillis());
    List<Double> idle = new ArrayList<>();
    long[] idleTicks = minus(hostTicks(), idleFrom);
    for (long t : idleTicks) {
      idle.add(Math.round(t * 10.0 / IDLE.toSeconds()) / 1000.0);
    }
    r.put("idleCoresByHost", idle);
    r.put(
        "idleCoresTemporalServer",
        Math.round((ProcStat.ticks(temporalPid) - serverIdleFrom) * 10.0 / IDLE.toSeconds())
            / 1000.0);
    // Placed is when the term wrote the VM's task (its scheduledAt); the status a VM shows stays
    // pending until its start is heard, so the counts cannot tell it.
    r.put("submitToPlacedAndRunningMillis", latencies(watch, start, r));
    clusterRuns.add(LoadHarness.clusterRun(temporal));
    // Each VM's history read once, its actions counted up to all running and up to every
    // workflow's first task.
    Instant runningBy = allRunning.plusSeconds(1);
    Instant ranBy = Instant.now().plusSeconds(1);
    Map<EventType, Long> cost = new java.util.EnumMap<>(EventType.class);
    Map<EventType, Long> all = new java.util.EnumMap<>(EventType.class);
    for (String run : clusterRuns) {
      List<io.temporal.api.history.v1.HistoryEvent> events =
          temporal
              .fetchHistory(dev.rota.workflows.cluster.ClusterWorkflow.WORKFLOW_ID, run)
              .getEvents();
      LoadHarness.count(events, start, runningBy, cost);
      LoadHarness.count(events, start, ranBy, all);
    }
    for (int i = 0; i < vms; i++) {
      List<io.temporal.api.history.v1.HistoryEvent> events =
          temporal
              .fetchHistory(dev.rota.workflows.vm.VmWorkflow.workflowId("load-" + i))
              .getEvents();
      LoadHarness.count(events, start, runningBy, cost);
      LoadHarness.count(events, start, ranBy, all);
    }
    r.put("actionsPerVmToAllRunning", Math.round(LoadHarness.actions(cost) * 100.0 / vms) / 100.0);
    r.put("actionsPerVmToWorkflowsRan", Math.round(LoadHarness.actions(all) * 100.0 / vms) / 100.0);
    r.put("actionsByKindPerVm", LoadHarness.perVm(all, vms));
    // What the server stored for one VM: its workflow's events so far.
    r.put(
        "aVmWorkflowsEvents",
        temporal
            .fetchHistory(dev.rota.workflows.vm.VmWorkflow.workflowId("load-0"))
            .getEvents()
            .stream()
            .map(e -> e.getEventType().name().replace("EVENT_TYPE_", "").toLowerCase())
            .toList());
    System.out.println(calls.json(r));
  }

  /** The burst's VMs: one set sent to the first host, or batches sent to each host in turn. */
  private void submit(int vms) throws Exception {
    calls.submit(vms, BATCH, n -> apis.get(n % apis.size()), CLIENT_THREADS);
  }

  /**
   * Deletes the burst's VMs (the set, or each VM), and waits until every row is gone, then until
   * every agent's task is gone and every VM workflow is closed; how long each took, in seconds.
   */
  private Map<String, Object> deleteAll(int vms, List<Agent> agents, WorkflowClient temporal)
      throws Exception {
    String api = apis.get(0);
    long from = System.nanoTime();
    calls.deleteSubmitted(vms, BATCH, api, CLIENT_THREADS);
    HarnessApi.await(
        "every VM deleted",
        () ->
            calls
                .vmCounts(api)
                .map(c -> c.values().stream().mapToLong(Number::longValue).sum() == 0)
                .orElse(false),
        Duration.ofMinutes(10));
    HarnessApi.await(
        "the set deleted",
        () -> BATCH > 0 || calls.status(api + "/v1/vm-sets/load") == 404,
        Duration.ofMinutes(5));
    double rowsGone = secondsSince(from);
    HarnessApi.await(
        "every agent's task gone",
        () -> agents.stream().allMatch(a -> a.tasks().isEmpty()),
        Duration.ofMinutes(5));
    double tasksGone = secondsSince(from);
    HarnessApi.await(
        "every VM workflow closed",
        () -> openVmWorkflows(temporal) == 0,
        Duration.ofMinutes(10),
        Duration.ofMillis(250));
    double workflowsClosed = secondsSince(from);
    System.out.printf(
        "  all %d deleted in %.3f s, their tasks gone in %.3f s, their workflows closed in %.3f s%n",
        vms, rowsGone, tasksGone, workflowsClosed);
    Thread.sleep(2_000); // the deletions' last news and terms, before the next burst's clock starts
    Map<String, Object> deleted = new LinkedHashMap<>();
    deleted.put("deletedSeconds", rowsGone);
    deleted.put("deletedTasksGoneSeconds", tasksGone);
    deleted.put("deletedWorkflowsClosedSeconds", workflowsClosed);
    return deleted;
  }

  private static double secondsSince(long nanos) {
    return Math.round((System.nanoTime() - nanos) / 1e6) / 1000.0;
  }

  /** How many VM workflows Temporal's visibility counts open. */
  private static long openVmWorkflows(WorkflowClient temporal) {
    return temporal
        .getWorkflowServiceStubs()
        .blockingStub()
        .countWorkflowExecutions(
            io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest.newBuilder()
                .setNamespace("default")
                .setQuery("WorkflowType = 'VmWorkflow' AND ExecutionStatus = 'Running'")
                .build())
        .getCount();
  }

  /**
   * Host {@code i} as {@code rota server} runs, from this jar: production mode, auth on, waited for
   * until its API answers.
   */
  private void startHost(int i, Path dir, String database, String temporalAddress)
      throws Exception {
    int port = LoadHarness.freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String options = (LAUNCHER_OPTIONS + " " + System.getProperty("bench.host-opts", "")).strip();
    command.addAll(List.of(options.split("\\s+")));
    System.getProperties().stringPropertyNames().stream()
        .filter(k -> k.startsWith("rota."))
        .sorted()
        .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
    // Names the harness's folder, so that a harness killed before it stops its hosts leaves hosts
    // that `pkill -f rota-hosts` finds with the rest of what it started.
    command.add("-Dbench.dir=" + dir);
    command.addAll(
        List.of(
            "-cp",
            Path.of(HostsHarness.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString(),
            "dev.rota.host.Main"));
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> env = builder.environment();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("DATASOURCES_DEFAULT_URL", database);
    env.put("DATASOURCES_DEFAULT_USERNAME", "rota");
    env.put("MICRONAUT_SERVER_HOST", "127.0.0.1");
    env.put("MICRONAUT_SERVER_PORT", String.valueOf(port));
    env.put("ROTA_BOOTSTRAP_ADMIN_TOKEN", adminToken);
    // One client plays every user here, with the admin's token: its rate would refuse it.
    env.put("ROTA_API_RATE_LIMIT", "100000");
    env.put("ROTA_API_RATE_BURST", "100000");
    Path out = dir.resolve("host-" + (i + 1) + ".out");
    Process host = builder.redirectErrorStream(true).redirectOutput(out.toFile()).start();
    hosts.add(host);
    String api = "http://127.0.0.1:" + port;
    apis.add(api);
    HarnessApi.await(
        "host " + (i + 1) + "'s API",
        () -> {
          if (!host.isAlive()) {
            throw new IllegalStateException("host " + (i + 1) + " exited; see " + out);
          }
          return calls.status(api + "/v1/cluster") == 200;
        },
        Duration.ofMinutes(3));
  }

  /** A worker token for each agent, then the agents, in this JVM, sharing their threads. */
  private void startAgents(int workers, Path dir, List<Agent> agents, AgentThreads threads)
      throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS);
    List<Future<String>> tokens = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      String worker = "w" + i;
      String api = apis.get((i - 1) % apis.size());
      tokens.add(
          clients.submit(
              () -> {
                HttpResponse<String> account =
                    calls.post(
                        api + "/v1/service-accounts",
                        "{\"name\":\"agent-"
                            + worker
                            + "\",\"roles\":[\"worker\"],\"worker\":\""
                            + worker
                            + "\"}");
                if (account.statusCode() != 201) {
                  throw new IllegalStateException("service account: " + account.body());
                }
                return (String)
                    new com.fasterxml.jackson.databind.ObjectMapper()
                        .readValue(account.body(), Map.class)
                        .get("token");
              }));
    }
    java.net.http.HttpClient controllerHttp = null;
    for (int i = 1; i <= workers; i++) {
      List<String> urls = new ArrayList<>();
      for (int h = 0; h < apis.size(); h++) {
        urls.add(apis.get((i - 1 + h) % apis.size()));
      }
      Map<String, String> env = new HashMap<>();
      env.put("ROTA_CONTROLLER_URL", String.join(",", urls));
      env.put("ROTA_WORKER_NAME", "w" + i);
      env.put("ROTA_AGENT_TOKEN", tokens.get(i - 1).get());
      env.put("ROTA_AGENT_PORT", "0");
      env.put("ROTA_AGENT_LISTEN", "127.0.0.1");
      env.put("ROTA_AGENT_DATA_DIR", dir.resolve("agents").resolve("w" + i).toString());
      env.put("ROTA_AGENT_TLS_KEYSTORE", dir.resolve("agents/tls/agent.p12").toString());
      env.put("ROTA_WORKER_RUNTIMES", "synthetic");
      env.put("ROTA_WORKER_RESOURCES", "cpu=64,memory=262144");
      // A synthetic task starts at once: submit-to-running is Rota's own time, not a VM's boot.
      env.put("ROTA_AGENT_SYNTHETIC_START_DELAY", "0ms");
      AgentConfig config = AgentConfig.from(env, new String[0]);
      if (controllerHttp == null) {
        controllerHttp = Agent.controllerHttp(config);
      }
      // -Dbench.agent-threads=own: each agent its own threads, as an agent process has, instead of
      // all sharing 32 timer threads whose blocking reports queue behind each other.
      agents.add(
          Agent.start(config, controllerHttp, OWN_THREADS ? AgentThreads.of("w" + i) : threads));
    }
    clients.shutdown();
  }

  /** VMs whose workflow is still to be started, as the database has them. */
  private static long owedWorkflowStarts(String database) {
    try (Connection c = DriverManager.getConnection(database);
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT count(*) FROM workflow_starts")) {
      rows.next();
      return rows.getLong(1);
    } catch (java.sql.SQLException e) {
      return -1;
    }
  }

  /** Each host's work so far, from its {@code /metrics}: {@link #WORK}'s series summed. */
  private List<Map<String, Double>> work() throws Exception {
    List<Map<String, Double>> all = new ArrayList<>();
    for (String api : apis) {
      Map<String, Double> sums = new LinkedHashMap<>();
      WORK.forEach(w -> sums.put(w.name(), 0.0));
      for (String line : calls.text(api + "/metrics").split("\n")) {
        String series = line.split("[{ ]", 2)[0];
        for (Work w : WORK) {
          if (w.series().equals(series) && line.contains(w.having())) {
            sums.merge(
                w.name(),
                Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)),
                Double::sum);
          }
        }
      }
      all.add(sums);
    }
    return all;
  }

  private static List<Map<String, Long>> minus(
      List<Map<String, Double>> after, List<Map<String, Double>> before) {
    List<Map<String, Long>> d = new ArrayList<>();
    for (int i = 0; i < after.size(); i++) {
      Map<String, Long> m = new LinkedHashMap<>();
      Map<String, Double> b = before.get(i);
      after.get(i).forEach((k, v) -> m.put(k, Math.round(v - b.getOrDefault(k, 0.0))));
      d.add(m);
    }
    return d;
  }

  private long[] hostTicks() {
    return hosts.stream().mapToLong(h -> ProcStat.ticks(h.pid())).toArray();
  }

  private static long[] minus(long[] a, long[] b) {
    long[] d = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i] - b[i];
    }
    return d;
  }

  private static List<Double> perVm(long[] ticks, int vms) {
    List<Double> l = new ArrayList<>();
    for (long t : ticks) {
      l.add(perVm(t, vms));
    }
    return l;
  }

  /** Clock ticks (1/100 s) as milliseconds per VM. */
  private static double perVm(long ticks, int vms) {
    return Math.round(ticks * 100.0 / vms) / 10.0;
  }

  private static double seconds(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0;
  }

  /**
   * Submit-to-placed and submit-to-running over the burst's VMs (p50/p95/p99/max, ms); when the
   * last was placed, from the burst's start, goes into {@code r}.
   */
  private Map<String, Object> latencies(String api, Instant start, Map<String, Object> r)
      throws Exception {
    Instant lastPlaced = start;
    List<Long> toPlaced = new ArrayList<>();
    List<Long> toRunning = new ArrayList<>();
    StringBuilder dump = new StringBuilder("vm,created_ms,placed_ms,started_ms\n");
    for (Map<String, Object> vm : calls.all(api, "/v1/vms")) {
      Instant created = Instant.parse((String) vm.get("createdAt"));
      Instant placed = Instant.parse((String) vm.get("scheduledAt"));
      Instant started = Instant.parse((String) vm.get("startedAt"));
      lastPlaced = placed.isAfter(lastPlaced) ? placed : lastPlaced;
      toPlaced.add(Duration.between(created, placed).toMillis());
      toRunning.add(Duration.between(created, started).toMillis());
      dump.append(vm.get("name"))
          .append(',')
          .append(Duration.between(start, created).toMillis())
          .append(',')
          .append(Duration.between(start, placed).toMillis())
          .append(',')
          .append(Duration.between(start, started).toMillis())
          .append('\n');
    }
    if (DUMP != null) {
      Path file = Path.of(DUMP, "burst-" + r.get("burst") + ".csv");
      Files.createDirectories(file.getParent());
      Files.writeString(file, dump);
    }
    r.put("allPlacedSeconds", seconds(start, lastPlaced));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("placed", LoadHarness.percentiles(toPlaced));
    m.put("running", LoadHarness.percentiles(toRunning));
    return m;
  }

  /** Runs one of the project's {@code .ci} scripts from the project's root: its last line. */
  private static String script(String path, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(ROOT.resolve(path).toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
    if (p.waitFor() != 0 && !args[0].equals("stop")) {
      throw new IllegalStateException(path + " " + args[0] + " failed");
    }
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }
}
