package dev.rota.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A repository's {@code :name} text run as one JDBC batch, on a database of its own. */
class BatchStatementTest {
  @Test
  void bindsEachRowByNameAndSaysWhatEachChanged() throws Exception {
    try (Connection db =
        DriverManager.getConnection(
            "jdbc:h2:mem:batch-" + System.nanoTime() + ";MODE=PostgreSQL")) {
      db.createStatement()
          .execute(
              "CREATE TABLE t (name VARCHAR(20) PRIMARY KEY, n INT, at TIMESTAMP WITH TIME ZONE)");
      BatchStatement insert =
          BatchStatement.of("INSERT INTO t (name, n, at) VALUES (:name, :n, :at)");
      Instant at = Instant.parse("2026-01-01T00:00:01.234Z");
      assertArrayEquals(
          new int[] {1, 1},
          insert.run(
              db,
              List.of(
                  Map.of("name", "a", "n", 1, "at", at), Map.of("name", "b", "n", 2, "at", at))));

      // A name used twice binds twice; a PostgreSQL cast (::) is not a parameter.
      BatchStatement bump =
          BatchStatement.of(
              "UPDATE t SET n = n + :by WHERE name = :name AND n < :by + 1 AND name::VARCHAR = :name");
      assertArrayEquals(
          new int[] {1, 0, 0},
          bump.run(
              db,
              List.of(
                  Map.of("name", "a", "by", 10),
                  Map.of("name", "b", "by", 1),
                  Map.of("name", "zz", "by", 5))));

      try (ResultSet rs =
          db.createStatement().executeQuery("SELECT n, at FROM t WHERE name = 'a'")) {
        rs.next();
        assertEquals(11, rs.getInt(1));
        assertEquals(at, rs.getObject(2, java.time.OffsetDateTime.class).toInstant());
      }
      IllegalArgumentException missing =
          assertThrows(
              IllegalArgumentException.class, () -> bump.run(db, List.of(Map.of("name", "a"))));
      assertEquals(true, missing.getMessage().contains(":by"), missing.getMessage());
      assertArrayEquals(new int[0], bump.run(db, List.of()), "nothing to run, no statement");
    }
  }
}
