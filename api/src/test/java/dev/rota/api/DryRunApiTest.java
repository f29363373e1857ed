package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ?dryRun=true}: the same checks as the real request, an answer of what it would do, and
 * nothing written (every table compared before and after); then the real request does what the dry
 * run said.
 */
@MicronautTest(transactional = false)
class DryRunApiTest {
  @Inject Http http;
  @Inject io.micronaut.transaction.TransactionOperations<Connection> tx;

  private static String set(String name, int replicas, String seconds) {
    return "{\"name\":\""
        + name
        + "\",\"replicas\":"
        + replicas
        + ",\"template\":{\"command\":[\"sleep\",\""
        + seconds
        + "\"]}}";
  }

  /** Every row of every table but the scheduler's status, as text. */
  private String database() {
    return tx.executeRead(status -> dump(status.getConnection()));
  }

  private static String dump(Connection db) {
    StringBuilder all = new StringBuilder();
    try (Statement s = db.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet r =
          s.executeQuery(
              "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                  + " AND table_type = 'BASE TABLE' ORDER BY table_name")) {
        while (r.next()) {
          tables.add(r.getString(1));
        }
      }
      // The scheduler's own bookkeeping, which its terms write while the test runs.
      tables.remove("cluster_status");
      for (String table : tables) {
        List<String> rows = new ArrayList<>();
        try (ResultSet r = s.executeQuery("SELECT * FROM " + table)) {
          int columns = r.getMetaData().getColumnCount();
          while (r.next()) {
            StringBuilder row = new StringBuilder();
            for (int c = 1; c <= columns; c++) {
              row.append(r.getString(c)).append('|');
            }
            rows.add(row.toString());
          }
        }
        rows.sort(null);
        all.append(table).append(": ").append(rows).append('\n');
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    return all.toString();
  }

  private List<String> replicas(String set) {
    return http.get("/v1/vms?set=" + set).items().stream()
        .map(vm -> (String) vm.get("name"))
        .sorted()
        .toList();
  }

  @Test
  @SuppressWarnings("unchecked")
  void aDryRunAnswersWhatWouldHappenWritesNothingAndTheRealRequestDoesIt() {
    assertEquals(201, http.post("/v1/vm-sets", set("dr", 3, "100")).status());
    eventually("three replicas", () -> replicas("dr").size() == 3);
    // Settled: each replica's workflow started (its start owed no more), and the scheduler's reason
    // for its wait written.
    eventually(
        "the set's replicas settled",
        () -> {
          String now = database();
          String starts = now.substring(now.indexOf("workflow_starts:"));
          starts = starts.substring(0, starts.indexOf('\n'));
          return starts.equals("workflow_starts: []")
              && now.split("no workers are registered", -1).length == 4;
        });
    String before = database();

    Http.Reply vm = http.post("/v1/vms?dryRun=true", "{\"name\":\"solo\",\"command\":[\"true\"]}");
    assertEquals(200, vm.status(), vm.toString());
    assertEquals("vm", vm.map().get("kind"));
    assertEquals("create", vm.map().get("action"));
    Map<String, Object> placement = ((List<Map<String, Object>>) vm.map().get("placements")).get(0);
    assertEquals("solo", placement.get("vm"));
    assertNull(placement.get("worker"), "no worker here");
    assertTrue(
        String.valueOf(placement.get("waiting")).contains("no worker"),
        String.valueOf(placement.get("waiting")));
    assertEquals("Never", ((Map<String, Object>) vm.map().get("vm")).get("restartPolicy"));

    Http.Reply created = http.post("/v1/vm-sets?dryRun=true", set("new", 2, "100"));
    assertEquals(200, created.status(), created.toString());
    assertEquals(
        Map.of("make", List.of("new-0", "new-1"), "remove", List.of(), "replace", List.of()),
        created.map().get("replicas"));

    Http.Reply scaled = http.put("/v1/vm-sets/dr?dryRun=true", set("dr", 5, "100"));
    assertEquals(200, scaled.status(), scaled.toString());
    assertEquals("update", scaled.map().get("action"));
    assertEquals(
        List.of(Map.of("field", "replicas", "from", 3, "to", 5)), scaled.map().get("changes"));
    assertEquals(
        Map.of("make", List.of("dr-3", "dr-4"), "remove", List.of(), "replace", List.of()),
        scaled.map().get("replicas"));

    Http.Reply rolled = http.put("/v1/vm-sets/dr?dryRun=true", set("dr", 3, "200"));
    assertEquals(
        List.of(
            Map.of(
                "field",
                "template.command",
                "from",
                List.of("sleep", "100"),
                "to",
                List.of("sleep", "200"))),
        rolled.map().get("changes"));
    assertEquals(
        List.of("dr-0", "dr-1", "dr-2"),
        ((Map<String, Object>) rolled.map().get("replicas")).get("replace"));
    assertEquals(2, ((Map<String, Object>) rolled.map().get("set")).get("version"));

    Http.Reply same = http.put("/v1/vm-sets/dr?dryRun=true", set("dr", 3, "100"));
    assertEquals("unchanged", same.map().get("action"), same.toString());

    // The same refusals as the real requests.
    Http.Reply bad = http.put("/v1/vm-sets/dr?dryRun=true", set("dr", -1, "100"));
    assertEquals(400, bad.status());
    assertTrue(bad.detail().startsWith("replicas:"), bad.detail());
    assertEquals(
        400, http.post("/v1/vms?dryRun=maybe", "{\"name\":\"x\",\"command\":[\"true\"]}").status());
    assertEquals(409, http.post("/v1/vm-sets?dryRun=true", set("dr", 1, "100")).status());
    Http.Reply misspelt =
        http.post("/v1/vms?dryrun=true", "{\"name\":\"solo\",\"command\":[\"true\"]}");
    assertEquals(400, misspelt.status(), "a parameter the call does not take does nothing");
    assertEquals("dryrun: is not a parameter of this call; it takes [dryRun]", misspelt.detail());
    assertEquals(404, http.put("/v1/vm-sets/nope?dryRun=true", set("nope", 1, "100")).status());
    assertEquals(before, database(), "a dry run writes nothing");

    // Then the real requests do what their dry runs said.
    assertEquals(200, http.put("/v1/vm-sets/dr", set("dr", 5, "100")).status());
    eventually(
        "dr-3 and dr-4 made",
        () -> replicas("dr").equals(List.of("dr-0", "dr-1", "dr-2", "dr-3", "dr-4")));
    Http.Reply down = http.put("/v1/vm-sets/dr?dryRun=true", set("dr", 2, "100"));
    List<String> removed =
        (List<String>) ((Map<String, Object>) down.map().get("replicas")).get("remove");
    assertEquals(List.of("dr-4", "dr-3", "dr-2"), removed);
    assertEquals(200, http.put("/v1/vm-sets/dr", set("dr", 2, "100")).status());
    eventually("those three removed", () -> replicas("dr").equals(List.of("dr-0", "dr-1")));
  }
}
