package dev.rota.host;

import dev.rota.testing.CiScript;
import dev.rota.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;

/**
 * The real services the integration tests run Rota against, set up by the project's own scripts:
 * the Temporal server from the official CLI ({@code .ci/temporal}, one fresh server per test class)
 * and PostgreSQL ({@code ROTA_TEST_POSTGRES_URL}, or one started by {@code .ci/postgres} for this
 * JVM; a fresh database per test class). A test that cannot have them is skipped, saying why.
 */
final class RealServices {
  private static final Path ROOT = CiScript.root();
  private static String postgresServer;

  private RealServices() {}

  /**
   * A running Temporal dev server of the pinned CLI version; stop it with {@link Temporal#close()}.
   */
  record Temporal(String address, String webUi, Path dir, String ciScript) implements Outage {

    /**
     * Starts the halted server again without Rota's search attributes, as a namespace made anew has
     * none.
     */
    void resumeBare() {
      assertOk(CiScript.run(ciScript(), "resume-bare", dir().toString()));
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
      assertOk(CiScript.run(ciScript(), "halt", dir().toString()));
    }

    /** Starts the halted server again on its port and state. */
    default void resume() {
      assertOk(CiScript.run(ciScript(), "resume", dir().toString()));
    }

    @Override
    default void close() {
      CiScript.run(ciScript(), "stop", dir().toString());
    }
  }

  static Temporal temporal() throws IOException {
    Path dir = Files.createTempDirectory("rota-it-temporal");
    String address = CiScript.run(".ci/temporal", "start", dir.toString()).needed("Temporal CLI");
    return new Temporal(
        address, Files.readString(dir.resolve("ui-url")).strip(), dir, ".ci/temporal");
  }

  /**
   * Temporal's own server ({@code .ci/temporal-server}: built from its Go module release, several
   * history shards, on databases of its own on the tests' PostgreSQL); it serves no Web UI.
   */
  static Temporal temporalServer() throws IOException {
    // Outside the tests' lock on installs: the build .ci/run began may take minutes more, and the
    // other tests' installs and starts should not wait for it.
    CiScript.run(".ci/temporal-server", "build").needed("Temporal server");
    Path dir = Files.createTempDirectory("rota-it-temporal-server");
    String address =
        CiScript.run(".ci/temporal-server", "start", dir.toString(), unusedDatabaseName("rota_ts_"))
            .needed("Temporal server");
    return new Temporal(address, null, dir, ".ci/temporal-server");
  }

  /** The installed CLI (installing it when missing), for running its commands in a test. */
  static Path temporalCli() {
    return Path.of(CiScript.run(".ci/temporal", "install").needed("Temporal CLI"));
  }

  /** {@link #temporalCli()} for a test that can do without: empty when none can be had. */
  static Optional<Path> installedTemporalCli() {
    CiScript installed = CiScript.run(".ci/temporal", "install");
    return installed.ok() ? Optional.of(Path.of(installed.lastLine())) : Optional.empty();
  }

  /** Schemathesis's {@code st}, installed by {@code .ci/schemathesis} (from PyPI) when missing. */
  static Path schemathesis() {
    return Path.of(CiScript.run(".ci/schemathesis", "install").needed("Schemathesis"));
  }

  /**
   * iproute2's {@code ip}, installed by {@code .ci/netns} when missing, on a machine that lets root
   * make namespaces.
   */
  static void networkNamespaces() {
    CiScript.run(".ci/netns", "install").needed("network namespace");
  }

  /** The project's root folder. */
  static Path root() {
    return ROOT;
  }

  /** Debian's chromium and chromedriver, installed by {@code .ci/chromium} when missing. */
  static Path chromium() {
    return Path.of(CiScript.run(".ci/chromium", "install").needed("Chromium"));
  }

  /**
   * A PostgreSQL server of its own (not the one the other tests share), for a test that stops it:
   * its JDBC URL, and the folder {@code .ci/postgres} keeps it in.
   */
  record Postgres(String url, Path dir) implements Outage {
    static Postgres start() throws IOException {
      Path dir = Files.createTempDirectory(Path.of("/tmp"), "rota-it-postgres-own");
      return new Postgres(
          CiScript.run(".ci/postgres", "start", dir.toString()).needed("PostgreSQL"), dir);
    }

    /** Halted, it stops at once, as a machine losing power would. */
    @Override
    public String ciScript() {
      return ".ci/postgres";
    }
  }

  private static void assertOk(CiScript script) {
    if (script.exit() != 0) {
      throw new AssertionError("script failed: " + script.said());
    }
  }

  /** The JDBC URL of a new, empty database. */
  static synchronized String newPostgresDatabase() throws SQLException, IOException {
    String url = unusedDatabaseName("rota_it_");
    try (Connection c = DriverManager.getConnection(postgresServer);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + url.replaceFirst("^.*/([^/?]+)(\\?.*)?$", "$1"));
    }
    return url;
  }

  /** The JDBC URL of a database not made yet on the tests' PostgreSQL, named {@code prefix...}. */
  private static synchronized String unusedDatabaseName(String prefix) throws IOException {
    if (postgresServer == null) {
      postgresServer = TestPostgres.url();
    }
    String name = prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    return postgresServer.replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
  }
}
