package dev.rota.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

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
    Assumptions.assumeTrue(url != null, () -> "no PostgreSQL could be had: " + whyNot);
    return url;
  }

  /** The settings that point a test's context at {@code url}, with its own. */
  static Map<String, String> datasource(String url) {
    return Map.of(
        "datasources.default.url", url,
        "datasources.default.driver-class-name", "org.postgresql.Driver",
        "datasources.default.username", "",
        "datasources.default.password", "");
  }

  private static void start() {
    try {
      Path script = root().resolve(".ci/postgres");
      Path dir = Files.createTempDirectory(Path.of("/tmp"), "rota-store-postgres");
      Path stderr = Files.createTempFile("rota-store-postgres", ".err");
      Process p =
          new ProcessBuilder("bash", script.toString(), "start", dir.toString())
              .redirectError(stderr.toFile())
              .start();
      List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        whyNot = ".ci/postgres took over 10 minutes";
        return;
      }
      List<String> said = Files.readAllLines(stderr);
      Files.delete(stderr);
      if (p.exitValue() != 0 || lines.isEmpty()) {
        whyNot = said.isEmpty() ? ".ci/postgres failed" : said.get(said.size() - 1);
        return;
      }
      url = lines.get(lines.size() - 1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      new ProcessBuilder("bash", script.toString(), "stop", dir.toString())
                          .start()
                          .waitFor(1, TimeUnit.MINUTES);
                    } catch (IOException | InterruptedException e) {
                      // the JVM is exiting: the temporary folder is all it leaves
                    }
                  }));
    } catch (IOException e) {
      whyNot = e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      whyNot = "interrupted";
    }
  }

  /** The project's root: the first folder up from here that holds {@code .ci/postgres}. */
  private static Path root() throws IOException {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve(".ci/postgres"))) {
        return p;
      }
    }
    throw new IOException("no .ci/postgres above " + Path.of("").toAbsolutePath());
  }
}
