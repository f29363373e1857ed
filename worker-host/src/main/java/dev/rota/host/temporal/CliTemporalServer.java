package dev.rota.host.temporal;

import dev.rota.host.StartupException;
import io.temporal.common.SearchAttributeKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real Temporal server for dev mode: the official CLI's {@code temporal server start-dev}
 * (Temporal Server with SQLite, and the Web UI), run as a child process on 127.0.0.1 with its state
 * in the data folder, so that workflows and their histories survive a restart of dev mode.
 *
 * <p>SQLite runs with a write-ahead log, synced at checkpoints rather than at every commit: a
 * commit then survives the server being killed (it is in the log the next server reads), though not
 * the machine losing power, which is dev mode's bargain. With SQLite's defaults (a rollback
 * journal, every commit synced) the server took 43 workflow starts a second on a 2-core machine;
 * with these, 77.
 *
 * <p>A small shell watchdog sits between the host and the server: it stops the server when the host
 * is gone, even after a SIGKILL that gives the host no chance to, so the next start finds the ports
 * and the SQLite file free.
 */
public final class CliTemporalServer implements LocalTemporalServer {
  private static final Logger log = LoggerFactory.getLogger(CliTemporalServer.class);
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final Duration STOP_GRACE = Duration.ofSeconds(15);
  private static final String WATCHDOG =
      """
      pidfile=$1; host=$2; shift 2
      "$@" &
      child=$!
      echo "$child" > "$pidfile"
      trap 'kill -TERM "$child" 2>/dev/null' TERM INT
      while kill -0 "$child" 2>/dev/null; do
        kill -0 "$host" 2>/dev/null || kill -TERM "$child" 2>/dev/null
        sleep 1
      done
      wait "$child"
      """;

  private final Process watchdog;
  private final Path pidFile;
  private final String version;
  private final int uiPort;
  private final Path state;

  private CliTemporalServer(
      Process watchdog, Path pidFile, String version, int uiPort, Path state) {
    this.watchdog = watchdog;
    this.pidFile = pidFile;
    this.version = version;
    this.uiPort = uiPort;
    this.state = state;
  }

  /**
   * Starts the server and waits until it takes connections.
   *
   * @throws StartupException with one line saying why it cannot
   */
  public static CliTemporalServer start(
      Path cli, int port, int uiPort, Path dataDir, List<SearchAttributeKey<?>> searchAttributes) {
    Path pidFile = dataDir.resolve("temporal.pid");
    stopLeftOver(pidFile);
    requireFree(port, "Temporal (CLI dev server)", "ROTA_TEMPORAL_PORT");
    requireFree(uiPort, "the Temporal Web UI", "ROTA_TEMPORAL_UI_PORT");
    String version = version(cli);
    Path state = dataDir.resolve("temporal.sqlite");
    Path logFile = dataDir.resolve("temporal.log");
    List<String> command =
        new ArrayList<>(
            List.of(
                "sh",
                "-c",
                WATCHDOG,
                "rota-temporal-watchdog",
                pidFile.toString(),
                String.valueOf(ProcessHandle.current().pid()),
                cli.toString(),
                "server",
                "start-dev",
                "--ip",
                "127.0.0.1",
                "--port",
                String.valueOf(port),
                "--ui-port",
                String.valueOf(uiPort),
                // Else the CLI picks them from the ephemeral range, where a connection may take one
                // before the server binds it.
                "--http-port",
                String.valueOf(dev.rota.host.LoopbackPorts.free()),
                "--metrics-port",
                String.valueOf(dev.rota.host.LoopbackPorts.free()),
                "--db-filename",
                state.toString(),
                "--sqlite-pragma",
                "journal_mode=wal",
                "--sqlite-pragma",
                "synchronous=normal",
                "--log-level",
                "warn",
                "--ui-disable-news-fetch",
                // A workflow whose tasks fail twice in a row is flagged (TemporalReportedProblems),
                // which the UI's Failures view lists: a stuck workflow is found, not searched for.
                "--dynamic-config-value",
                "system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute=2"));
    for (SearchAttributeKey<?> key : searchAttributes) {
      command.add("--search-attribute");
      command.add(key.getName() + "=" + cliType(key));
    }
    Process watchdog;
    try {
      Files.deleteIfExists(pidFile);
      watchdog =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
    } catch (IOException e) {
      throw new StartupException(
          "cannot run the Temporal CLI " + cli + " (" + StartupException.rootMessage(e) + ")", e);
    }
    CliTemporalServer server = new CliTemporalServer(watchdog, pidFile, version, uiPort, state);
    Instant deadline = Instant.now().plus(PATIENCE);
    while (!accepts(port)) {
      if (!watchdog.isAlive() || Instant.now().isAfter(deadline)) {
        server.close();
        throw new StartupException(
            "the Temporal CLI dev server did not start on 127.0.0.1:"
                + port
                + " ("
                + lastError(logFile).orElse("no error in its log")
                + "); its log is "
                + logFile);
      }
      sleep(Duration.ofMillis(100));
    }
    log.debug("Temporal CLI {} dev server on 127.0.0.1:{}, UI on {}", version, port, uiPort);
    return server;
  }

  @Override
  public String description() {
    return "Temporal CLI " + version + " dev server, state in " + state;
  }

  @Override
  public Optional<String> webUi() {
    return Optional.of("http://127.0.0.1:" + uiPort);
  }

  @Override
  public Optional<io.grpc.ManagedChannel> inProcessChannel() {
    return Optional.empty(); // a process of its own
  }

  /** Stops the server (SIGTERM, then SIGKILL after a grace period) and waits for it to exit. */
  @Override
  public void close() {
    server().ifPresent(p -> stop(p, STOP_GRACE));
    stop(watchdog.toHandle(), Duration.ofSeconds(2));
  }

  private Optional<ProcessHandle> server() {
    try {
      return Files.exists(pidFile)
          ? ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip()))
          : Optional.empty();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** A server left running by a host that was killed before its watchdog noticed: stopped first. */
  private static void stopLeftOver(Path pidFile) {
    try {
      if (!Files.exists(pidFile)) {
        return;
      }
      long pid = Long.parseLong(Files.readString(pidFile).strip());
      ProcessHandle.of(pid)
          .filter(p -> p.info().commandLine().map(c -> c.contains("start-dev")).orElse(false))
          .ifPresent(
              p -> {
                log.info(
                    "stopping the Temporal dev server a previous run left behind (pid {})", pid);
                stop(p, STOP_GRACE);
              });
    } catch (IOException | NumberFormatException e) {
      log.debug("unreadable {}: {}", pidFile, e.toString());
    }
  }

  private static void stop(ProcessHandle process, Duration grace) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.debug("{} did not stop within {}: {}", process.pid(), grace, e.toString());
    }
    process.destroyForcibly();
    process.onExit().orTimeout(5, TimeUnit.SECONDS).exceptionally(t -> null).join();
  }

  private static String version(Path cli) {
    try {
      Process p = new ProcessBuilder(cli.toString(), "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new StartupException("the Temporal CLI " + cli + " does not run: " + out);
      }
      // "temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)"
      return out.replaceFirst("^temporal version\\s+", "");
    } catch (IOException e) {
      throw new StartupException(
          "cannot run the Temporal CLI " + cli + " (" + StartupException.rootMessage(e) + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while asking the Temporal CLI its version", e);
    }
  }

  /** The CLI's names for search attribute types: Keyword, KeywordList, Datetime, … */
  static String cliType(SearchAttributeKey<?> key) {
    String name = key.getValueType().name().replaceFirst("^INDEXED_VALUE_TYPE_", "");
    StringBuilder out = new StringBuilder();
    for (String word : name.split("_")) {
      out.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }

  private static void requireFree(int port, String what, String setting) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    } catch (IOException e) {
      throw new StartupException(
          what
              + " cannot listen on 127.0.0.1:"
              + port
              + " ("
              + StartupException.rootMessage(e)
              + "); set "
              + setting
              + " to a free port",
          e);
    }
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The last error the CLI logged: a line of its own ({@code Error: …}), or a log entry at level
   * ERROR or FATAL, as text ({@code level=ERROR}) or JSON ({@code "level":"FATAL"}, where the
   * server says a port it was given is taken); its message alone when it has one.
   */
  static Optional<String> lastError(Path logFile) {
    try {
      List<String> lines = Files.readAllLines(logFile);
      for (int i = lines.size() - 1; i >= 0; i--) {
        String line = lines.get(i).strip();
        if (line.startsWith("Error:")
            || line.contains("level=ERROR")
            || line.contains("level=FATAL")
            || line.contains("\"level\":\"ERROR\"")
            || line.contains("\"level\":\"FATAL\"")) {
          java.util.regex.Matcher message =
              java.util.regex.Pattern.compile("\"message\":\"((?:[^\"\\\\]|\\\\.)*)\"")
                  .matcher(line);
          String said = message.find() ? message.group(1) : line;
          return Optional.of(said.length() > 300 ? said.substring(0, 300) + "…" : said);
        }
      }
    } catch (IOException e) {
      log.debug("cannot read {}: {}", logFile, e.toString());
    }
    return Optional.empty();
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while waiting for the Temporal CLI dev server", e);
    }
  }
}
