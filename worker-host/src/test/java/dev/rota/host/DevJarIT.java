package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar rota.jar dev} as a user runs it: it starts, serves, refuses a second copy with
 * one line, and stops cleanly on SIGTERM. The deadlines below bound waiting for a process; they
 * assert nothing about speed.
 */
class DevJarIT {
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

    try (JarProcess first = JarProcess.dev("first", env, work)) {
      String banner = first.start().awaitOutput("  Data ").output();
      assertTrue(banner.contains("API       http://127.0.0.1:" + http), banner);
      assertTrue(
          banner.contains(
              "Rota " + dev.rota.agentapi.RotaBuild.current().described() + " dev mode"),
          "the banner says which build runs: " + banner);
      assertTrue(banner.contains("Temporal  127.0.0.1:" + temporal), banner);
      assertTrue(banner.contains("Data      " + work.resolve("data")), banner);

      assertTrue(termReported(http) >= 1, "the cluster workflow ran a term and the API shows it");
      // The agents registered before the banner: each says which build it is.
      String workers =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/v1/workers"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertTrue(
          workers.contains("\"agentVersion\":\"" + dev.rota.agentapi.RotaBuild.current() + "\""),
          workers);

      try (JarProcess second = JarProcess.dev("second", env, work)) {
        assertNotEquals(0, second.start().awaitExit(), "the second copy gives up");
        List<String> lines = second.output().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(2, lines.size(), "what it starts, then one line, no stack trace: " + lines);
        assertTrue(lines.get(0).startsWith("rota: starting dev mode"), lines.get(0));
        assertTrue(lines.get(1).startsWith("rota: cannot start: "), lines.get(1));
        assertTrue(lines.get(1).contains(work.resolve("data").toString()), lines.get(1));
      }

      assertEquals(0, first.stop(), "a clean stop on SIGTERM exits 0");
      String log = first.output();
      assertTrue(!log.contains("Exception"), "a clean stop logs no exception:\n" + log);
    }
  }

  @Test
  void theAdminTokenFromTheEnvironmentIsTheBootstrapAdminsAndNoneIsGenerated() throws Exception {
    int http = FreePorts.next();
    String token = "compose-" + "x".repeat(24);
    Map<String, String> env =
        Map.of(
            "MICRONAUT_SERVER_PORT",
            String.valueOf(http),
            "ROTA_TEMPORAL_PORT",
            String.valueOf(FreePorts.next()),
            "ROTA_DATA_DIR",
            work.resolve("auth-data").toString(),
            "ROTA_DEV_AGENTS",
            "0",
            "ROTA_AUTH_ENABLED",
            "true",
            "ROTA_BOOTSTRAP_ADMIN_TOKEN",
            token);
    try (JarProcess host = JarProcess.dev("auth", env, work)) {
      assertTrue(
          !host.start().awaitOutput("  Data ").output().contains("Admin token"),
          "no token generated when one is given");
      HttpClient client = HttpClient.newHttpClient();
      URI cluster = URI.create("http://127.0.0.1:" + http + "/v1/cluster");
      assertEquals(
          401,
          client
              .send(HttpRequest.newBuilder(cluster).build(), HttpResponse.BodyHandlers.discarding())
              .statusCode());
      assertEquals(
          200,
          client
              .send(
                  HttpRequest.newBuilder(cluster)
                      .header("Authorization", "Bearer " + token)
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode(),
          "ROTA_BOOTSTRAP_ADMIN_TOKEN is the admin's token");
    }
  }

  private static long termReported(int port) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    Pattern term = Pattern.compile("\"term\":(\\d+)");
    Instant deadline = Instant.now().plus(JarProcess.PATIENCE);
    while (Instant.now().isBefore(deadline)) {
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/cluster"))
                  .build(),
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
