package dev.rota.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The PostgreSQL the store's tests run on: the one {@code ROTA_TEST_POSTGRES_URL} names (CI starts
 * one), or else one {@code .ci/postgres} installs and starts for this JVM, stopped when it exits. A
 * test that asks for it is skipped, saying why, only when neither can be had.
 */
public final class TestPostgres {
  private static String url;
  private static String whyNot;

  private TestPostgres() {}

  /** The server's JDBC URL; skips the calling test when there is none. */
  public static synchronized String url() {
    if (url == null && whyNot == null) {
      String given = System.getenv("ROTA_TEST_POSTGRES_URL");
      if (given != null && given.startsWith("jdbc:postgresql:")) {
        url = given;
      } else {
        start();
      }
    }
    Needs.had(url != null, () -> "no PostgreSQL could be had: " + whyNot);
    return url;
  }

  /** The settings that point a test's context at {@code url}, with its own. */
  public static Map<String, String> datasource(String url) {
    return Map.of(
        "datasources.default.url", url,
        "datasources.default.driver-class-name", "org.postgresql.Driver",
        "datasources.default.username", "",
        "datasources.default.password", "");
  }

  private static void start() {
    Path dir;
    try {
      dir = Files.createTempDirectory(Path.of("/tmp"), "rota-store-postgres");
    } catch (IOException e) {
      whyNot = e.toString();
      return;
    }
    CiScript started = CiScript.run(".ci/postgres", "start", dir.toString());
    if (!started.ok()) {
      whyNot = started.lastLine();
      return;
    }
    url = started.lastLine();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> CiScript.run(".ci/postgres", "stop", dir.toString())));
  }
}
