package dev.rota.agent;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.config.AgentConfig;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.images.ImageCache;
import dev.rota.agent.images.OciRegistry;
import dev.rota.agent.images.Prefetcher;
import dev.rota.agent.link.ControllerClient;
import dev.rota.agent.link.ControllerLink;
import dev.rota.agent.link.Fence;
import dev.rota.agent.link.TaskReporter;
import dev.rota.agent.link.WorkerFacts;
import dev.rota.agent.machine.HostPorts;
import dev.rota.agent.machine.Tools;
import dev.rota.agent.runtimes.AgentSelf;
import dev.rota.agent.runtimes.Cgroups;
import dev.rota.agent.runtimes.DiskSnapshots;
import dev.rota.agent.runtimes.GuestConfinement;
import dev.rota.agent.runtimes.Isolation;
import dev.rota.agent.runtimes.PersistentDisks;
import dev.rota.agent.runtimes.ProcessRuntime;
import dev.rota.agent.runtimes.QemuHost;
import dev.rota.agent.runtimes.QemuRuntime;
import dev.rota.agent.runtimes.SyntheticRuntime;
import dev.rota.agent.server.AgentHttp;
import dev.rota.agent.server.AgentTls;
import dev.rota.agent.server.PortTunnels;
import dev.rota.agent.tasks.HealthChecks;
import dev.rota.agent.tasks.Supervisor;
import dev.rota.agent.tasks.TaskLogs;
import dev.rota.agent.tasks.TaskRuntime;
import dev.rota.agent.tasks.TaskTable;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One agent: its task table and runtimes, its task API, its link to the controller. */
public final class Agent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  private final AgentConfig config;

  /** Its own threads, shut down with it; null when it shares its process's. */
  private final AgentThreads ownThreads;

  private final AgentHttp http;
  private final TaskTable tasks;
  private final ControllerLink link;
  private final TaskReporter reporter;
  private final String certificateSha256;
  private final Cgroups cgroups;

  /** The sampling of its tasks' log ends; null when it runs none that write logs. */
  private final java.util.concurrent.Future<?> logSampling;

  private Agent(
      AgentConfig config,
      AgentThreads ownThreads,
      AgentHttp http,
      ControllerLink link,
      TaskReporter reporter,
      String certificateSha256,
      Cgroups cgroups,
      java.util.concurrent.Future<?> logSampling,
      TaskTable tasks) {
    this.tasks = tasks;
    this.logSampling = logSampling;
    this.certificateSha256 = certificateSha256;
    this.cgroups = cgroups;
    this.reporter = reporter;
    this.config = config;
    this.ownThreads = ownThreads;
    this.http = http;
    this.link = link;
  }

  /** Starts an agent; an {@link IllegalStateException} says in one line why it cannot. */
  public static Agent start(AgentConfig config) {
    return start(config, ControllerClient.httpClient(config));
  }

  /**
   * Starts an agent that calls its controller through {@code controllerHttp}, a client it shares
   * with other agents of this process (see {@link #controllerHttp}); closing the agent leaves it
   * open.
   */
  public static Agent start(AgentConfig config, java.net.http.HttpClient controllerHttp) {
    AgentThreads own = AgentThreads.of(config.workerName());
    try {
      return start(config, controllerHttp, own, own);
    } catch (RuntimeException e) {
      own.close();
      throw e;
    }
  }

  /**
   * Starts an agent on {@code threads}, which it shares with other agents of this process and
   * leaves running when closed (its own timers stop rescheduling themselves).
   */
  public static Agent start(
      AgentConfig config, java.net.http.HttpClient controllerHttp, AgentThreads threads) {
    return start(config, controllerHttp, threads, null);
  }

  private static Agent start(
      AgentConfig config,
      java.net.http.HttpClient controllerHttp,
      AgentThreads threads,
      AgentThreads ownThreads) {
    // The controller may send fields this agent does not know yet (a newer TaskSpec): they are
    // ignored.
    ObjectMapper json =
        new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    Path tasksDir = tasksDir(config);
    try {
      Files.createDirectories(tasksDir);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot create the agent's data folder " + tasksDir + " (" + e.getMessage() + ")");
    }
    AgentTls tls = null;
    if (config.insecureHttp()) {
      log.warn(
          "ROTA_AGENT_INSECURE_HTTP=true: the task API is plain HTTP; the secret the controller presents and "
              + "the tasks' specs cross the network readable, and the agent's identity is not checked");
    } else {
      tls = AgentTls.load(config);
    }
    ScheduledExecutorService timers = threads.timers();
    ExecutorService requests = threads.requests();
    Supervisor supervisor = new Supervisor(tasksDir, json);
    HeldImages images =
        new HeldImages(config.dataDir().resolve("images.json"), json, java.time.Clock.systemUTC());
    Map<String, TaskRuntime> runtimes = new LinkedHashMap<>();
    HostPorts ports = HostPorts.parse(config.listenHost(), config.portRange());
    WorkerFacts facts = new WorkerFacts();
    Cgroups cgroups =
        config.runtimes().stream()
                .map(String::strip)
                .anyMatch(r -> r.equals("process") || r.equals("qemu"))
            ? Cgroups.detect(config.workerName() + "-" + shortHash(config.dataDir().toString()))
            : Cgroups.none("no process or qemu runtime");
    // Only a worker with an image cache (the qemu runtime) fetches images ahead; others are not
    // asked.
    java.util.function.Consumer<java.util.List<String>> prefetch = asked -> {};
    PersistentDisks disks = null;
    DiskSnapshots snapshots = null;
    java.util.concurrent.CompletableFuture<AgentSelf> self =
        new java.util.concurrent.CompletableFuture<>();
    for (String r : config.runtimes()) {
      switch (r.strip()) {
        case "process" -> {
          facts.label(Isolation.LABEL, cgroups.kind().label);
          if (cgroups.reason() != null) {
            String unenforced =
                "process tasks run without CPU and memory limits: " + cgroups.reason();
            log.warn("agent {}: {}", config.workerName(), unenforced);
            facts.notice(unenforced);
          }
          runtimes.put("process", new ProcessRuntime(supervisor, cgroups));
        }
        case "synthetic" ->
            runtimes.put(
                "synthetic", new SyntheticRuntime(timers, config.syntheticStartDelay(), images));
        case "qemu" -> {
          QemuHost.installed().orElseThrow(QemuHost::missing);
          // The accelerator's probe takes up to its deadline: the agent serves meanwhile, and what
          // needs to know (a boot, the registration's label) waits for it.
          java.util.concurrent.CompletableFuture<QemuHost> host =
              java.util.concurrent.CompletableFuture.supplyAsync(
                  () -> {
                    QemuHost h =
                        QemuHost.of(config.qemuAccel(), config.dataDir().resolve("scratch"));
                    log.info(
                        "agent {}: qemu runs guests under {} ({})",
                        config.workerName(),
                        h.accel(),
                        h.why());
                    return h;
                  },
                  threads.requests());
          facts.later(
              said -> {
                QemuHost h = host.join();
                said.label(Isolation.ACCEL_LABEL, h.accel());
                if (h.accel().equals("tcg")) {
                  said.notice(
                      "qemu guests run under software emulation (TCG), many times slower than under KVM: "
                          + h.why());
                }
              });
          OciRegistry registry =
              new OciRegistry(
                  json,
                  registryCredentials(config, json),
                  java.util.Set.copyOf(config.insecureRegistries()));
          ImageCache cache =
              new ImageCache(
                  config.dataDir().resolve("images"),
                  config.imageCacheBytes(),
                  json,
                  java.time.Clock.systemUTC(),
                  images,
                  registry);
          GuestConfinement confinement =
              GuestConfinement.detect(
                  cgroups, config.dataDir(), config.guestUids(), config.guestAllow());
          facts.label(
              Isolation.GUEST_LABEL,
              confinement.available() ? dev.rota.agentapi.GuestIsolation.CONFINED : "none");
          if (!confinement.available()) {
            String unconfined =
                "qemu guests run unconfined (as the agent's user, unfiltered, without CPU and memory limits): "
                    + confinement.reason();
            log.warn("agent {}: {}", config.workerName(), unconfined);
            facts.notice(unconfined);
          }
          try {
            disks = new PersistentDisks(config.dataDir().resolve("disks"), cache, json);
          } catch (IOException e) {
            throw new IllegalStateException(
                "cannot create the agent's disk folder ("
                    + e.getMessage()
                    + "): the qemu runtime keeps persistent disks there");
          }
          snapshots = new DiskSnapshots(disks, cache, registry, host::join);
          runtimes.put(
              "qemu",
              new QemuRuntime(
                  supervisor,
                  cache,
                  host,
                  threads.requests(),
                  timers,
                  ports.bindHost(),
                  confinement,
                  disks,
                  self));
          prefetch =
              new Prefetcher(cache, images, threads.requests(), java.time.Clock.systemUTC())::want;
        }
        default ->
            throw new IllegalStateException(
                "ROTA_WORKER_RUNTIMES names "
                    + r
                    + "; this agent offers process, qemu and synthetic");
      }
    }
    ControllerClient controller = new ControllerClient(config, json, controllerHttp);
    TaskReporter reporter =
        new TaskReporter(controller, config.workerName(), timers, config.heartbeatInterval());
    TaskTable tasks =
        new TaskTable(
            runtimes,
            supervisor,
            tasksDir,
            config.stopGrace(),
            reporter::changed,
            new TaskLogs(config.dataDir().resolve("logs")),
            ports,
            new HealthChecks(timers, threads.checks(), ports.bindHost(), config.stopGrace()));
    int recovered = tasks.recover();
    PortTunnels tunnels = new PortTunnels(ports.bindHost());
    dev.rota.agent.link.ControllerClock controllerClock =
        new dev.rota.agent.link.ControllerClock(java.time.Clock.systemUTC());
    AgentHttp http;
    try {
      http =
          new AgentHttp(
              config.listenHost(),
              config.port(),
              tasks,
              json,
              requests,
              config.secret(),
              tls == null ? null : tls.context(),
              tunnels,
              controllerClock,
              disks,
              snapshots);
    } catch (BindException e) {
      throw new IllegalStateException(
          "the agent cannot listen on "
              + config.listenHost()
              + ":"
              + config.port()
              + " ("
              + e.getMessage()
              + "); set ROTA_AGENT_PORT");
    } catch (IOException e) {
      throw new IllegalStateException(
          "the agent cannot listen on "
              + config.listenHost()
              + ":"
              + config.port()
              + " ("
              + e.getMessage()
              + ")");
    }
    http.start();
    String endpoint = config.endpoint(http.port());
    self.complete(
        new AgentSelf(
            config.workerName(), endpoint, config.secret(), tls == null ? null : tls.sha256()));
    Fence fence = new Fence(config.dataDir().resolve("fence"), java.time.Clock.systemUTC(), tasks);
    fence.start(timers, requests);
    ControllerLink link =
        new ControllerLink(
            config,
            endpoint,
            tls == null ? null : tls.sha256(),
            controller,
            timers,
            images,
            facts,
            fence,
            controllerClock,
            prefetch);
    java.util.concurrent.Future<?> logSampling =
        runtimes.containsKey("process") || runtimes.containsKey("qemu")
            ? timers.scheduleAtFixedRate(
                () -> tasks.sampleLogs(java.time.Instant.now()), 1, 1, TimeUnit.SECONDS)
            : null;
    link.start();
    reporter.start();
    log.info(
        "agent {} serving {} ({} tasks found again)", config.workerName(), endpoint, recovered);
    return new Agent(
        config,
        ownThreads,
        http,
        link,
        reporter,
        tls == null ? null : tls.sha256(),
        cgroups,
        logSampling,
        tasks);
  }

  /** Its tasks as it knows them now. */
  public List<dev.rota.agentapi.TaskView> tasks() {
    return tasks.list();
  }

  /**
   * Eight hex digits of {@code text}'s SHA-256: tells apart agents of one name on one machine
   * (tests, dev hosts).
   */
  private static String shortHash(String text) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d, 0, 4);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether this machine has QEMU for the {@code qemu} runtime (dev mode offers it then). */
  public static boolean qemuInstalled() {
    return QemuHost.installed().isPresent();
  }

  /**
   * A client for calls to the controller {@code config} names, for agents of one process to share.
   */
  public static java.net.http.HttpClient controllerHttp(AgentConfig config) {
    return ControllerClient.httpClient(config);
  }

  public int port() {
    return http.port();
  }

  /**
   * Where the controller reaches this agent: its scheme (https when it serves TLS), host and port.
   */
  public String endpoint() {
    return config.endpoint(http.port());
  }

  public String name() {
    return config.workerName();
  }

  /** What the controller presents to this agent; for in-process callers such as tests. */
  public String secret() {
    return config.secret();
  }

  /** The SHA-256 of the certificate the task API is served with; null for plain HTTP. */
  public String certificateSha256() {
    return certificateSha256;
  }

  public boolean registered() {
    return link.registered();
  }

  /**
   * Stops serving, heartbeating and reporting; tasks keep running, to be found again by the next
   * agent.
   */
  @Override
  public void close() {
    if (logSampling != null) {
      logSampling.cancel(false);
    }
    link.close();
    reporter.close();
    http.stop();
    Path tasksDir = tasksDir(config);
    cgroups.removeUnheld(id -> Files.isDirectory(tasksDir.resolve(id)));
    if (ownThreads != null) {
      ownThreads.close();
    }
  }

  /** Where the agent keeps a folder per task it holds, named by the task's id. */
  private static Path tasksDir(AgentConfig config) {
    return config.dataDir().resolve("tasks");
  }

  /**
   * The registries' credentials from {@code ROTA_AGENT_REGISTRY_AUTH}; a bad file stops the start.
   */
  private static Map<String, String> registryCredentials(AgentConfig config, ObjectMapper json) {
    try {
      return OciRegistry.credentials(json, config.registryAuth());
    } catch (java.io.IOException | RuntimeException e) {
      throw new AgentConfig.BadSetting(
          "ROTA_AGENT_REGISTRY_AUTH="
              + config.registryAuth()
              + " is not a Docker config.json ({\"auths\": {\"host\": {\"auth\": \"...\"}}}): "
              + Tools.firstLine(String.valueOf(e.getMessage())));
    }
  }
}
