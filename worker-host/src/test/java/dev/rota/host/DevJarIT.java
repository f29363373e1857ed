package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar rota.jar dev} as a user runs it: it starts, serves, refuses a second copy with one
 * line, and stops cleanly on SIGTERM. The deadlines below bound waiting for a process; they assert
 * nothing about speed.
 */
class DevJarIT {
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  @TempDir Path work;

  @Test
  void startsServesRefusesASecondCopyAndStopsCleanlyOnSigterm() throws Exception {
    int http = FreePorts.next();
    int temporal = FreePorts.next();
    Map<String, String> env =
        Map.of(
            "MICRONAUT_SERVER_PORT", String.valueOf(http),
            "ROTA_TEMPORAL_PORT", String.valueOf(temporal),
            "ROTA_DATA_DIR", work.resolve("data").toString());

    Process first = start(env, "first");
    try {
      waitForOutput(first, work.resolve("first.out"), "  Data ");
      String banner = Files.readString(work.resolve("first.out"));
      assertTrue(banner.contains("API       http://127.0.0.1:" + http), banner);
      assertTrue(banner.contains("Temporal  127.0.0.1:" + temporal), banner);
      assertTrue(banner.contains("Data      " + work.resolve("data")), banner);

      assertTrue(termReported(http) >= 1, "the cluster workflow ran a term and the API shows it");

      Process second = start(env, "second");
      assertTrue(second.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the second copy gives up");
      assertNotEquals(0, second.exitValue());
      List<String> lines =
          Files.readAllLines(work.resolve("second.out")).stream().filter(l -> !l.isBlank()).toList();
      assertEquals(1, lines.size(), "one line, no stack trace: " + lines);
      assertTrue(lines.get(0).startsWith("rota: cannot start: "), lines.get(0));
      assertTrue(lines.get(0).contains(work.resolve("data").toString()), lines.get(0));

      first.destroy(); // SIGTERM
      assertTrue(first.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), "stops on SIGTERM");
      assertEquals(0, first.exitValue(), "a clean stop exits 0");
      String log = Files.readString(work.resolve("first.out"));
      assertTrue(!log.contains("Exception"), "a clean stop logs no exception:\n" + log);
    } finally {
      first.destroyForcibly();
    }
  }

  @Test
  void theAdminTokenFromTheEnvironmentIsTheBootstrapAdminsAndNoneIsGenerated() throws Exception {
    int http = FreePorts.next();
    String token = "compose-" + "x".repeat(24);
    Map<String, String> env =
        Map.of(
            "MICRONAUT_SERVER_PORT", String.valueOf(http),
            "ROTA_TEMPORAL_PORT", String.valueOf(FreePorts.next()),
            "ROTA_DATA_DIR", work.resolve("auth-data").toString(),
            "ROTA_DEV_AGENTS", "0",
            "ROTA_AUTH_ENABLED", "true",
            "ROTA_BOOTSTRAP_ADMIN_TOKEN", token);
    Process host = start(env, "auth");
    try {
      waitForOutput(host, work.resolve("auth.out"), "  Data ");
      assertTrue(!Files.readString(work.resolve("auth.out")).contains("Admin token"), "no token generated when one is given");
      HttpClient client = HttpClient.newHttpClient();
      URI cluster = URI.create("http://127.0.0.1:" + http + "/v1/cluster");
      assertEquals(401, client.send(HttpRequest.newBuilder(cluster).build(), HttpResponse.BodyHandlers.discarding()).statusCode());
      assertEquals(200, client.send(HttpRequest.newBuilder(cluster).header("Authorization", "Bearer " + token).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode(), "ROTA_BOOTSTRAP_ADMIN_TOKEN is the admin's token");
    } finally {
      host.destroyForcibly();
    }
  }

  private Process start(Map<String, String> env, String name) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                System.getProperty("rota.jar"),
                "dev")
            .directory(work.toFile())
            .redirectErrorStream(true)
            .redirectOutput(work.resolve(name + ".out").toFile());
    builder.environment().putAll(env);
    return builder.start();
  }

  private static void waitForOutput(Process process, Path out, String marker) throws Exception {
    Instant deadline = Instant.now().plus(PATIENCE);
    while (Instant.now().isBefore(deadline)) {
      if (Files.exists(out) && Files.readString(out).contains(marker)) {
        return;
      }
      if (!process.isAlive()) {
        throw new AssertionError("exited with " + process.exitValue() + ":\n" + Files.readString(out));
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no '" + marker + "' within " + PATIENCE + ":\n" + Files.readString(out));
  }

  private static long termReported(int port) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    Pattern term = Pattern.compile("\"term\":(\\d+)");
    Instant deadline = Instant.now().plus(PATIENCE);
    while (Instant.now().isBefore(deadline)) {
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/cluster")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, response.statusCode(), response.body());
      Matcher m = term.matcher(response.body());
      if (m.find() && Long.parseLong(m.group(1)) >= 1) {
        return Long.parseLong(m.group(1));
      }
      Thread.sleep(200);
    }
    return 0;
  }
}
