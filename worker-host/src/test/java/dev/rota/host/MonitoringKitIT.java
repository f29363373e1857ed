package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.testing.CiScript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The operators' kit the release ships (docker/grafana/rota-dashboard.json,
 * docker/rota-alerts.yml): Prometheus' own promtool ({@code .ci/promtool}) parses the alert rules
 * and every query of the dashboard, and runs the rules' unit tests; and every series they ask for
 * is one a real scrape of dev mode, with its real agents, has.
 */
class MonitoringKitIT extends SharedDevStack {
  private static final Path DOCKER = CiScript.root().resolve("docker");
  private static final Path DASHBOARD = DOCKER.resolve("grafana/rota-dashboard.json");
  private static final Path ALERTS = DOCKER.resolve("rota-alerts.yml");

  /** A series name in a query: what Rota, the Temporal SDK, the JVM or Prometheus exports. */
  private static final Pattern SERIES =
      Pattern.compile("\\b((?:rota|temporal|jvm|process|system)_[a-z0-9_]+|up)\\b(?!\\s*\\()");

  /** Series that appear once their first event does, not at start: the SDK's failure counters. */
  private static final Set<String> AFTER_FIRST_EVENT = Set.of("temporal_activity_execution_failed");

  private static String promtool() {
    return CiScript.run(".ci/promtool", "install").needed("promtool");
  }

  private static String run(Path dir, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + ":\n" + out);
    return out;
  }

  private static List<String> dashboardQueries() throws IOException {
    List<String> queries = new ArrayList<>();
    for (JsonNode panel : new ObjectMapper().readTree(DASHBOARD.toFile()).path("panels")) {
      panel.path("targets").forEach(t -> queries.add(t.path("expr").asText()));
    }
    return queries;
  }

  private static List<String> alertQueries() throws IOException {
    List<String> queries = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\s+expr: (.+)$").matcher(Files.readString(ALERTS));
    while (m.find()) {
      queries.add(m.group(1));
    }
    return queries;
  }

  @Test
  void promtoolParsesTheRulesAndTheDashboardsQueriesAndTheRulesFireAsTheirTestsSay()
      throws Exception {
    String promtool = promtool();
    assertTrue(
        run(DOCKER, promtool, "check", "rules", ALERTS.toString()).contains("SUCCESS: 6 rules"));
    run(DOCKER, promtool, "test", "rules", "rota-alerts.test.yml");

    // Each dashboard query as a recording rule: promtool parses it as Prometheus would.
    List<String> queries = dashboardQueries();
    assertTrue(queries.size() >= 10, "the dashboard's queries: " + queries);
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    for (int i = 0; i < queries.size(); i++) {
      rules
          .append("      - record: dashboard:query_")
          .append(i)
          .append("\n        expr: '")
          .append(queries.get(i).replace("'", "''"))
          .append("'\n");
    }
    Path file = dir.resolve("dashboard-queries.yml");
    Files.writeString(file, rules);
    assertTrue(
        run(dir, promtool, "check", "rules", file.toString())
            .contains("SUCCESS: " + queries.size() + " rules"));
  }

  @Test
  void everySeriesTheDashboardAndTheRulesAskForIsInARealScrape() throws Exception {
    RotaClient.Reply created =
        stack.api(
            "POST",
            "/v1/vms",
            "{\"name\":\"monitored\",\"command\":[\"sleep\",\"317\"],\"resources\":{\"cpu\":1,\"memory\":64}}");
    assertEquals(201, created.status(), created.body());
    eventually("monitored runs", () -> "running".equals(stack.vm("monitored").get("status")));
    RotaClient.Reply scrape = stack.api("GET", "/metrics", null);
    assertEquals(200, scrape.status(), scrape.body());
    Set<String> exported = new TreeSet<>(dev.rota.testing.PrometheusText.names(scrape.body()));
    exported.add("up"); // Prometheus' own, for every target it scrapes

    Set<String> asked = new TreeSet<>();
    List<String> queries = new ArrayList<>(dashboardQueries());
    queries.addAll(alertQueries());
    for (String q : queries) {
      Matcher m = SERIES.matcher(q);
      while (m.find()) {
        asked.add(m.group(1));
      }
    }
    assertTrue(asked.contains("rota_vm_oldest_pending_seconds"), asked.toString());
    Set<String> missing = new TreeSet<>(asked);
    missing.removeAll(exported);
    missing.removeIf(
        name -> AFTER_FIRST_EVENT.stream().anyMatch(lazy -> name.startsWith(lazy + "_")));
    assertEquals(Set.of(), missing, "asked for and not exported; exported: " + exported);
    assertEquals(202, stack.api("DELETE", "/v1/vms/monitored", null).status());
  }
}
