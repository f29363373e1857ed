package dev.rota.host;

import dev.rota.api.auth.AdminBootstrap;
import dev.rota.api.auth.AuthSettings;
import dev.rota.api.auth.WorkerTokens;
import dev.rota.control.ControlWorkflows;
import dev.rota.control.WorkflowKeeper;
import dev.rota.core.failure.Causes;
import dev.rota.host.temporal.LocalTemporalServer;
import dev.rota.host.temporal.SearchAttributeRegistrar;
import dev.rota.host.temporal.TemporalOutageWatch;
import dev.rota.host.temporal.TemporalSettings;
import dev.rota.host.temporal.TemporalWorkers;
import dev.rota.scheduler.settings.RotaSettings;
import dev.rota.scheduler.settings.SchedulerSettings;
import dev.rota.scheduler.settings.SettingRule;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.server.HttpServerConfiguration;
import io.micronaut.http.server.netty.NettyEmbeddedServer;
import io.micronaut.jdbc.DataSourceResolver;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Rota host: brings up settings, database, Temporal, HTTP and the Temporal worker in that
 * order, so that the first thing that cannot start is the one named, and takes them down in
 * reverse.
 */
public final class RotaHost implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RotaHost.class);
  private static final Duration WORKER_GRACE = Duration.ofSeconds(10);

  private final HostMode mode;
  private final ApplicationContext context;
  private final Path dataDir;
  private EmbeddedServer server;
  private TemporalWorkers workers;
  private WorkflowExecution clusterExecution;
  private int restoredVms;
  private DevAgents devAgents;
  private String generatedAdminToken;
  private boolean closed;

  private RotaHost(HostMode mode, ApplicationContext context, Path dataDir) {
    this.mode = mode;
    this.context = context;
    this.dataDir = dataDir;
  }

  /**
   * Starts a host. Properties given here win over environment variables and configuration files.
   *
   * @throws StartupException with a one-line reason when anything cannot start; nothing is left
   *     running
   */
  public static RotaHost start(HostMode mode, Map<String, Object> properties) {
    Map<String, Object> props = new HashMap<>(properties);
    Path dataDir = mode == HostMode.DEV ? prepareDataDir(props) : null;
    ApiTransport transport = ApiTransport.configure(mode, props);
    DatabaseTimeout.configure(props);
    ApplicationContext context;
    try {
      // Starting the context opens the database pool and runs the migrations.
      io.micronaut.context.ApplicationContextBuilder builder =
          ApplicationContext.builder()
              .environments(mode.environment())
              .deduceEnvironment(false)
              .properties(props);
      if (dataDir != null) {
        builder.singletons(new DevDataFolder(dataDir));
      }
      context = builder.start();
    } catch (RuntimeException e) {
      throw databaseFailure(e, dataDir)
          .orElseGet(() -> StartupException.describe("configuration", e));
    }
    RotaHost host = new RotaHost(mode, context, dataDir);
    try {
      host.bringUp(transport);
      return host;
    } catch (RuntimeException e) {
      host.close();
      throw e;
    }
  }

  private void bringUp(ApiTransport transport) {
    step(
        "settings",
        () -> {
          List<SettingRule<?>> rules = new ArrayList<>(RotaSettings.RULES);
          rules.addAll(TemporalSettings.RULES);
          rules.addAll(DevAgents.RULES);
          SettingRule.checkAll(context.getEnvironment(), context.getConversionService(), rules);
          context.getBean(SchedulerSettings.class);
          return context.getBean(TemporalSettings.class);
        });
    openDatabase();
    AuthSettings auth = step("settings", () -> context.getBean(AuthSettings.class));
    if (mode == HostMode.PRODUCTION && !auth.enabled() && !auth.allowInsecure()) {
      throw new StartupException(
          "refusing to run a production host with auth off (ROTA_AUTH_ENABLED=false); "
              + "set ROTA_AUTH_ALLOW_INSECURE=true if that is really meant");
    }
    transport
        .refusal()
        .ifPresent(
            why -> {
              throw new StartupException(why);
            });
    transport.warning().ifPresent(log::warn);
    if (auth.enabled()) {
      generatedAdminToken =
          step("bootstrap admin", () -> context.getBean(AdminBootstrap.class).ensureAdmin())
              .orElse(null);
    }
    step("Temporal", () -> context.getBean(WorkflowClient.class));
    step(
        "Temporal search attributes",
        () -> context.getBean(SearchAttributeRegistrar.class).registerMissing());
    server = step("HTTP server", () -> context.getBean(EmbeddedServer.class));
    startHttp();
    workers = step("Temporal worker", () -> context.getBean(TemporalWorkers.class));
    workers.start();
    context.getBean(TemporalOutageWatch.class).start();
    // Before the scheduler's start and the restore, which would join their open runs.
    step(
        "ending workflows of an earlier release line",
        () -> context.getBean(dev.rota.control.EarlierLineWorkflows.class).end());
    clusterExecution =
        step("cluster workflow", () -> context.getBean(ControlWorkflows.class).startScheduler());
    log.info(
        "cluster workflow {} run {}",
        clusterExecution.getWorkflowId(),
        clusterExecution.getRunId());
    WorkflowKeeper keeper = context.getBean(WorkflowKeeper.class);
    // Dev mode's embedded server forgets every workflow on restart, and the database remembers
    // every VM.
    restoredVms = step("restoring VM workflows", keeper::restoreAll);
    if (restoredVms > 0) {
      log.info("VM workflows ensured for {} VMs", restoredVms);
    }
    keeper.keepEvery(keeper.schedulerEvery());
    context
        .getBean(dev.rota.control.VmWorkflowStarter.class)
        .sweepEvery(dev.rota.control.VmWorkflowStarter.SWEEP_EVERY);
    context
        .getBean(dev.rota.control.DiskSweeper.class)
        .sweepEvery(dev.rota.control.DiskSweeper.EVERY);
    if (mode == HostMode.DEV) {
      DevAgentSettings local = context.getBean(DevAgentSettings.class);
      String heartbeat = context.getBean(DevAgentPace.class).heartbeatInterval();
      java.util.function.Function<String, String> tokens =
          authEnabled()
              ? worker -> context.getBean(WorkerTokens.class).issue(worker)
              : worker -> null;
      String runtimes =
          local.agentRuntimes() != null
              ? local.agentRuntimes()
              : dev.rota.agent.Agent.qemuInstalled()
                  ? "process,qemu,synthetic"
                  : "process,synthetic";
      devAgents =
          step(
              "dev agents",
              () ->
                  DevAgents.start(
                      local.agents(),
                      server.getURI(),
                      dataDir,
                      heartbeat,
                      local.agentResources(),
                      runtimes,
                      local.agentSyntheticStartDelay(),
                      local.agentRegistryAuth(),
                      tokens));
    }
  }

  /** Dev mode's local agents; empty otherwise. */
  public List<dev.rota.agent.Agent> devAgents() {
    return devAgents == null ? List.of() : devAgents.agents();
  }

  /** The admin token generated at this start, to be printed once; null if none was. */
  public String generatedAdminToken() {
    return generatedAdminToken;
  }

  public boolean authEnabled() {
    return context.getBean(AuthSettings.class).enabled();
  }

  /** How many VMs had their workflow ensured at start. */
  public int restoredVms() {
    return restoredVms;
  }

  private void openDatabase() {
    Optional<String> url = context.getProperty("datasources.default.url", String.class);
    if (url.isEmpty()) {
      throw new StartupException(
          "no database configured: set DATASOURCES_DEFAULT_URL (e.g. jdbc:postgresql://db:5432/rota) "
              + "with DATASOURCES_DEFAULT_USERNAME and DATASOURCES_DEFAULT_PASSWORD");
    }
    try {
      // The bean is Micronaut Data's contextual proxy; the check needs the pool behind it.
      DataSource dataSource =
          context.getBean(DataSourceResolver.class).resolve(context.getBean(DataSource.class));
      try (Connection connection = dataSource.getConnection()) {
        connection.isValid(5);
      }
    } catch (Exception e) {
      throw databaseFailure(e, dataDir).orElseGet(() -> StartupException.describe("database", e));
    }
  }

  /**
   * A failure to open or migrate the database, worded with where it is; empty for other failures.
   */
  private static Optional<StartupException> databaseFailure(Throwable failure, Path dataDir) {
    if (!Causes.any(
        failure,
        t -> t instanceof SQLException || t.getClass().getName().startsWith("org.flywaydb"))) {
      return Optional.empty();
    }
    String where =
        dataDir != null
            ? "in " + dataDir
            : "at "
                + withoutSecrets(
                    Optional.ofNullable(System.getenv("DATASOURCES_DEFAULT_URL"))
                        .orElse("the configured URL"));
    String hint =
        dataDir != null ? "; is another Rota using it? set ROTA_DATA_DIR to another folder" : "";
    return Optional.of(
        new StartupException(
            "cannot open the database "
                + where
                + " ("
                + StartupException.rootMessage(failure)
                + ")"
                + hint,
            failure));
  }

  private void startHttp() {
    // Worded before starting: a server that fails to bind stops the context, and its settings with
    // it.
    HttpServerConfiguration http = context.getBean(HttpServerConfiguration.class);
    String where = http.getHost().orElse("0.0.0.0") + ":" + http.getPort().orElse(8080);
    try {
      server.start();
    } catch (RuntimeException e) {
      throw new StartupException(
          "the API cannot listen on "
              + where
              + " ("
              + StartupException.rootMessage(e)
              + "); set MICRONAUT_SERVER_PORT to a free port",
          e);
    }
  }

  private static Path prepareDataDir(Map<String, Object> props) {
    String dir = EarlySettings.get(props, "rota.data-dir", "ROTA_DATA_DIR").orElse(".rota-dev");
    Path path = Path.of(dir).toAbsolutePath().normalize();
    try {
      Files.createDirectories(path);
    } catch (IOException e) {
      throw new StartupException(
          "cannot create the data folder " + path + " (" + StartupException.rootMessage(e) + ")",
          e);
    }
    // H2 refuses paths that are implicitly relative, so the URL gets the absolute one.
    props.put("rota.data-dir", path.toString());
    devSecretsKey(props, path);
    return path;
  }

  /**
   * Dev mode seals secrets with a key of its own in the data folder, made once, unless the user
   * gives one: a production host has only the operator's.
   */
  private static void devSecretsKey(Map<String, Object> props, Path dataDir) {
    if (EarlySettings.get(props, "rota.secrets.key", "ROTA_SECRETS_KEY").isPresent()
        || EarlySettings.get(props, "rota.secrets.key-file", "ROTA_SECRETS_KEY_FILE").isPresent()) {
      return;
    }
    Path key = dataDir.resolve("secrets.key");
    try {
      if (!Files.exists(key)) {
        Path part = dataDir.resolve("secrets.key.part");
        Files.deleteIfExists(part);
        Files.createFile(
            part,
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.writeString(part, dev.rota.store.SecretBox.newKey());
        Files.move(part, key, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      }
    } catch (IOException e) {
      throw new StartupException(
          "cannot make the secrets key " + key + " (" + StartupException.rootMessage(e) + ")", e);
    }
    props.put("rota.secrets.key-file", key.toString());
  }

  /** Runs one start-up step, turning its failure into one line that names the step. */
  private static <T> T step(String what, Supplier<T> action) {
    try {
      return action.get();
    } catch (RuntimeException e) {
      throw StartupException.describe(what, e);
    }
  }

  static String withoutSecrets(String jdbcUrl) {
    return jdbcUrl.replaceAll("(?i)(password|user)=[^;&]*", "$1=***");
  }

  public HostMode mode() {
    return mode;
  }

  public ApplicationContext context() {
    return context;
  }

  public URI apiUri() {
    return server.getURI();
  }

  public String temporalTarget() {
    return context.getBean(TemporalSettings.class).target();
  }

  /** The Temporal server dev mode runs for itself; empty for a host that connects to one. */
  public Optional<LocalTemporalServer> localTemporal() {
    return mode == HostMode.DEV ? context.findBean(LocalTemporalServer.class) : Optional.empty();
  }

  public String namespace() {
    return context.getBean(TemporalSettings.class).namespace();
  }

  public Optional<Path> dataDir() {
    return Optional.ofNullable(dataDir);
  }

  public WorkflowExecution clusterExecution() {
    return clusterExecution;
  }

  /** Stops taking requests, drains the Temporal worker, then closes Temporal, pools and files. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (devAgents != null) {
      devAgents.close();
    }
    if (server != null && server.isRunning()) {
      // stop() would close the whole context too, Temporal's channel included, under the worker's
      // feet.
      if (server instanceof NettyEmbeddedServer netty) {
        netty.stopServerOnly();
      } else {
        server.stop();
      }
    }
    if (workers != null) {
      workers.shutdown(WORKER_GRACE);
    }
    if (context.isRunning()) {
      context.close();
    }
    log.debug("host closed");
  }
}
