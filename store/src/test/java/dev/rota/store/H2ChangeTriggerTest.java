package dev.rota.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * H2 makes a table anew to add a column, and makes its triggers anew on that copy before giving it
 * the table's name: the change feed must still say which kind of row changed, and keep a worker's
 * heartbeat quiet, after a migration adds a column.
 */
class H2ChangeTriggerTest {
  @Test
  void aColumnAddedAfterTheTriggersLeavesTheFeedSayingWhatChanged() throws Exception {
    try (Connection db =
            DriverManager.getConnection(
                "jdbc:h2:mem:trigger-" + System.nanoTime() + ";MODE=PostgreSQL");
        Statement s = db.createStatement()) {
      s.execute("CREATE SEQUENCE change_seq");
      s.execute(
          "CREATE TABLE changes (id BIGINT PRIMARY KEY, kind VARCHAR(16), name VARCHAR(63), deleted BOOLEAN, "
              + "changed_at TIMESTAMP WITH TIME ZONE)");
      s.execute("CREATE TABLE vms (name VARCHAR(63) PRIMARY KEY, status VARCHAR(16))");
      s.execute(
          "CREATE TABLE workers (name VARCHAR(63) PRIMARY KEY, health VARCHAR(16), last_seen TIMESTAMP)");
      s.execute(
          "CREATE TRIGGER vms_changes AFTER INSERT, UPDATE, DELETE ON vms FOR EACH ROW CALL \""
              + H2ChangeTrigger.class.getName()
              + "\"");
      s.execute(
          "CREATE TRIGGER workers_changes AFTER INSERT, UPDATE, DELETE ON workers FOR EACH ROW CALL \""
              + H2ChangeTrigger.class.getName()
              + "\"");
      s.execute("ALTER TABLE vms ADD COLUMN guest TEXT");
      s.execute("ALTER TABLE workers ADD COLUMN notices TEXT");

      s.execute("INSERT INTO vms (name, status) VALUES ('web', 'pending')");
      s.execute("INSERT INTO workers (name, health) VALUES ('w1', 'ready')");
      s.execute("UPDATE workers SET last_seen = CURRENT_TIMESTAMP WHERE name = 'w1'");
      s.execute("UPDATE workers SET notices = '[\"no limits\"]' WHERE name = 'w1'");
      s.execute("DELETE FROM vms WHERE name = 'web'");

      List<String> feed = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT kind, name, deleted FROM changes ORDER BY id")) {
        while (rs.next()) {
          feed.add(rs.getString(1) + " " + rs.getString(2) + (rs.getBoolean(3) ? " deleted" : ""));
        }
      }
      assertEquals(List.of("vm web", "worker w1", "worker w1", "vm web deleted"), feed);
    }
  }
}
