package dev.rota.host;

import dev.rota.store.TestPostgres;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The real services the integration tests run Rota against, set up by the project's own scripts:
 * the Temporal server from the official CLI ({@code .ci/temporal}, one fresh server per test class)
 * and PostgreSQL ({@code ROTA_TEST_POSTGRES_URL}, or one started by {@code .ci/postgres} for this
 * JVM; a fresh database per test class). A test that cannot have them is skipped, saying why.
 */
final class RealServices {
  private static final Path ROOT =
      Path.of(System.getProperty("rota.root", "..")).toAbsolutePath().normalize();
  private static String postgresServer;

  private RealServices() {}

  /**
   * A running Temporal dev server of the pinned CLI version; stop it with {@link Temporal#close()}.
   */
  record Temporal(String address, String webUi, Path dir) implements Outage {
    @Override
    public String ciScript() {
      return ".ci/temporal";
    }

    /**
     * Starts the halted server again without Rota's search attributes, as a namespace made anew has
     * none.
     */
    void resumeBare() {
      assertOk(RealServices.script(ciScript(), "resume-bare", dir().toString()));
    }
  }

  /**
   * A server a {@code .ci} script keeps in a folder of its own, which a test can halt and resume.
   */
  interface Outage extends AutoCloseable {
    /** The script that starts, halts, resumes and stops it. */
    String ciScript();

    Path dir();

    /** Stops the server at once, keeping its files: an outage. */
    default void halt() {
      assertOk(RealServices.script(ciScript(), "halt", dir().toString()));
    }

    /** Starts the halted server again on its port and state. */
    default void resume() {
      assertOk(RealServices.script(ciScript(), "resume", dir().toString()));
    }

    @Override
    default void close() {
      RealServices.script(ciScript(), "stop", dir().toString());
    }
  }

  static Temporal temporal() throws IOException {
    Path dir = Files.createTempDirectory("rota-it-temporal");
    Script started = script(".ci/temporal", "start", dir.toString());
    Assumptions.assumeTrue(
        started.ok(),
        "no Temporal CLI could be had ("
            + started.lastLine()
            + "): the real-server tests are skipped");
    return new Temporal(started.lastLine(), Files.readString(dir.resolve("ui-url")).strip(), dir);
  }

  /** The installed CLI (installing it when missing), for running its commands in a test. */
  static Path temporalCli() {
    Script installed = script(".ci/temporal", "install");
    Assumptions.assumeTrue(
        installed.ok(), "no Temporal CLI could be had (" + installed.lastLine() + ")");
    return Path.of(installed.lastLine());
  }

  /** {@link #temporalCli()} for a test that can do without: empty when none can be had. */
  static Optional<Path> installedTemporalCli() {
    try {
      return Optional.of(temporalCli());
    } catch (org.opentest4j.TestAbortedException e) {
      return Optional.empty();
    }
  }

  /** Schemathesis's {@code st}, installed by {@code .ci/schemathesis} (from PyPI) when missing. */
  static Path schemathesis() {
    Script installed = script(".ci/schemathesis", "install");
    Assumptions.assumeTrue(
        installed.ok(),
        "no Schemathesis could be had ("
            + installed.lastLine()
            + "): the API fuzz test is skipped");
    return Path.of(installed.lastLine());
  }

  /**
   * iproute2's {@code ip}, installed by {@code .ci/netns} when missing, on a machine that lets root
   * make namespaces.
   */
  static void networkNamespaces() {
    Script installed = script(".ci/netns", "install");
    Assumptions.assumeTrue(
        installed.ok(),
        "no network namespaces here (" + installed.lastLine() + "): the partition test is skipped");
  }

  /** The project's root folder. */
  static Path root() {
    return ROOT;
  }

  /** Debian's chromium and chromedriver, installed by {@code .ci/chromium} when missing. */
  static Path chromium() {
    Script installed = script(".ci/chromium", "install");
    Assumptions.assumeTrue(
        installed.ok(),
        "no Chromium could be had (" + installed.lastLine() + "): the Web UI test is skipped");
    return Path.of(installed.lastLine());
  }

  /**
   * A PostgreSQL server of its own (not the one the other tests share), for a test that stops it:
   * its JDBC URL, and the folder {@code .ci/postgres} keeps it in.
   */
  record Postgres(String url, Path dir) implements Outage {
    static Postgres start() throws IOException {
      Path dir = Files.createTempDirectory(Path.of("/tmp"), "rota-it-postgres-own");
      Script started = script(".ci/postgres", "start", dir.toString());
      Assumptions.assumeTrue(
          started.ok(), "no PostgreSQL could be had (" + started.lastLine() + ")");
      return new Postgres(started.lastLine(), dir);
    }

    /** Halted, it stops at once, as a machine losing power would. */
    @Override
    public String ciScript() {
      return ".ci/postgres";
    }
  }

  private static void assertOk(Script script) {
    if (script.exit() != 0) {
      throw new AssertionError("script failed: " + script.said());
    }
  }

  /** The JDBC URL of a new, empty database. */
  static synchronized String newPostgresDatabase() throws SQLException, IOException {
    if (postgresServer == null) {
      postgresServer = TestPostgres.url();
    }
    String name = "rota_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(postgresServer);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return postgresServer.replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
  }

  /** What a script printed: its stdout's lines, and the last line it said on stderr. */
  record Script(int exit, List<String> lines, String said) {
    boolean ok() {
      return exit == 0 && !lines.isEmpty();
    }

    /** The answer on success; on failure, why. */
    String lastLine() {
      return ok() || said.isBlank()
          ? (lines.isEmpty() ? "no output" : lines.get(lines.size() - 1))
          : said;
    }
  }

  /**
   * Runs one of the project's scripts; stdout's lines, stderr to this JVM's. An install or a start
   * may install packages, and the integration tests run in two JVMs at once: those calls take a
   * file lock first, so two apt-gets or two downloads of one tool never race.
   */
  private static Script script(String path, String... args) {
    if (args.length > 0 && (args[0].equals("install") || args[0].equals("start"))) {
      // A JVM holds a file lock once: its own threads take turns on the class first.
      synchronized (RealServices.class) {
        return locked(path, args);
      }
    }
    return run(path, args);
  }

  private static Script locked(String path, String... args) {
    try {
      Files.createDirectories(ROOT.resolve(".tools"));
      try (FileChannel lock =
              FileChannel.open(
                  ROOT.resolve(".tools/install.lock"),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE);
          FileLock held = lock.lock()) {
        return run(path, args);
      }
    } catch (IOException e) {
      return new Script(-1, List.of(), "cannot lock .tools/install.lock: " + e);
    }
  }

  private static Script run(String path, String... args) {
    List<String> command =
        new java.util.ArrayList<>(List.of("bash", ROOT.resolve(path).toString()));
    command.addAll(List.of(args));
    try {
      Path stderr = Files.createTempFile("rota-it-script", ".err");
      Process p =
          new ProcessBuilder(command)
              .directory(ROOT.toFile())
              .redirectError(stderr.toFile())
              .start();
      List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return new Script(-1, List.of(), path + " took over 10 minutes");
      }
      List<String> said = Files.readAllLines(stderr);
      Files.delete(stderr);
      return new Script(p.exitValue(), lines, said.isEmpty() ? "" : said.get(said.size() - 1));
    } catch (IOException e) {
      return new Script(-1, List.of(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Script(-1, List.of(), "interrupted");
    }
  }
}
