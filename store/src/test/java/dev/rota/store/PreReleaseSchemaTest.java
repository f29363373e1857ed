package dev.rota.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.Test;

/**
 * The one baseline migration, and a database made by a build from before release 0.1.0 (its schema
 * as the 35 migrations it replaced left it, kept in {@code pre-release/h2-schema-35.sql}): at the
 * last of them it is taken over with its rows, and its schema is the baseline's; at an earlier one
 * it is refused, saying so, and left as it was.
 */
class PreReleaseSchemaTest {
  private static int databases;

  private static String database() {
    return "jdbc:h2:mem:pre-release-" + ++databases + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1";
  }

  private static void migrate(String url) {
    FluentConfiguration configuration = Flyway.configure().dataSource(url, "sa", "");
    new PreReleaseSchema().customizeFluentConfiguration(configuration);
    configuration.load().migrate();
  }

  private static String preRelease() throws SQLException {
    String url = database();
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        Statement s = c.createStatement()) {
      s.execute("RUNSCRIPT FROM 'classpath:pre-release/h2-schema-35.sql'");
    }
    return url;
  }

  /** The history a database has once migrated: its first row, then every migration since 0.1.0. */
  private static List<String> after(String first) {
    return java.util.stream.Stream.concat(
            java.util.stream.Stream.of(first),
            java.util.stream.Stream.of(
                "2 Cluster pause",
                "3 Worker agent version",
                "4 Vm pending since",
                "5 Vm lease",
                "6 Vm disk",
                "7 Vm memory",
                "8 Vm disk from",
                "9 Volumes",
                "10 Vm migration",
                "11 Vm task name",
                "12 Pools",
                "13 Claim user data",
                "14 Pool standby",
                "15 Vm deletion asked",
                "16 Set versions",
                "17 Set rollout progress",
                "18 Set canaries",
                "19 Templates",
                "20 Vm priority",
                "21 Cluster preemption",
                "22 Vm constraints",
                "23 Vm tolerations",
                "24 Vm affinities",
                "25 Namespaces",
                "26 Account namespace roles"))
        .toList();
  }

  @Test
  void aNewDatabaseGetsTheBaseline() throws SQLException {
    String url = database();
    migrate(url);
    assertEquals(after("1 Schema"), history(url));
    assertEquals(
        "optimize-utilization",
        one(url, "SELECT scheduler_profile FROM cluster_settings WHERE id = 'default'"));
  }

  @Test
  void aDatabaseAtTheLastPreReleaseMigrationIsTakenOverWithItsRows() throws SQLException {
    String url = preRelease();
    exec(
        url,
        "INSERT INTO secrets (name, sealed, created_at, updated_at)"
            + " VALUES ('kept', 'x', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
    migrate(url);
    assertEquals(after("1 << Flyway Baseline >>"), history(url));
    assertEquals("kept", one(url, "SELECT name FROM secrets"));
    String fresh = database();
    migrate(fresh);
    assertEquals(columns(fresh), columns(url), "the baseline is the last pre-release schema");
    migrate(url); // and a host started again changes nothing
    assertEquals(after("1 << Flyway Baseline >>"), history(url));
  }

  @Test
  void aDatabaseOfRelease010IsMigratedWithItsSettingsKept() throws SQLException {
    String url = database();
    FluentConfiguration release010 = Flyway.configure().dataSource(url, "sa", "").target("1");
    new PreReleaseSchema().customizeFluentConfiguration(release010);
    release010.load().migrate();
    exec(url, "UPDATE cluster_settings SET scheduler_profile = 'distribute-load'");
    migrate(url);
    assertEquals(after("1 Schema"), history(url));
    assertEquals(
        "distribute-load",
        one(url, "SELECT scheduler_profile FROM cluster_settings WHERE id = 'default'"));
    assertEquals(
        "FALSE",
        one(url, "SELECT scheduling_paused FROM cluster_settings WHERE id = 'default'"),
        "not paused");
  }

  @Test
  void aDatabaseAtAnEarlierPreReleaseMigrationIsRefusedAndLeftAsItWas() throws SQLException {
    String url = preRelease();
    exec(url, "DELETE FROM \"flyway_schema_history\" WHERE CAST(\"version\" AS INT) > 20");
    FlywayException refused = assertThrows(FlywayException.class, () -> migrate(url));
    assertTrue(
        refused.getMessage().contains("stopped at its migration 20 of 35"), refused.getMessage());
    assertEquals(20, history(url).size(), "its history is as it was");
  }

  private static List<String> history(String url) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT \"version\", \"description\" FROM \"flyway_schema_history\""
                        + " WHERE \"version\" IS NOT NULL ORDER BY \"installed_rank\"")) {
      while (rs.next()) {
        rows.add(rs.getString(1) + " " + rs.getString(2));
      }
    }
    return rows;
  }

  /** Every column of Rota's tables: its table, name, type, size, whether null, its default. */
  private static TreeSet<String> columns(String url) throws SQLException {
    TreeSet<String> columns = new TreeSet<>();
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        ResultSet rs = c.getMetaData().getColumns(null, "PUBLIC", "%", "%")) {
      while (rs.next()) {
        String table = rs.getString("TABLE_NAME").toLowerCase();
        if (!table.contains("flyway")) {
          columns.add(
              table
                  + "."
                  + rs.getString("COLUMN_NAME").toLowerCase()
                  + " "
                  + rs.getString("TYPE_NAME")
                  + "("
                  + rs.getInt("COLUMN_SIZE")
                  + ") "
                  + rs.getString("IS_NULLABLE")
                  + " "
                  + rs.getString("COLUMN_DEF"));
        }
      }
    }
    return columns;
  }

  private static void exec(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String one(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
