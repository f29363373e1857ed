package dev.rota.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.h2.api.Trigger;

/**
 * H2's half of the change feed (see {@code db.migration.V1__Schema}): the same rule as PostgreSQL's
 * plpgsql trigger, on H2, which runs Java triggers on the writer's own connection, in its
 * transaction.
 */
public final class H2ChangeTrigger implements Trigger {
  private static final Set<String> QUIET =
      Set.of("last_seen", "last_probe_at", "last_probe_ok", "probe_failures", "last_probe_error");

  private String kind;
  private int nameColumn;

  /** Column positions whose change alone is not a change (a worker's heartbeat and probes). */
  private final Set<Integer> quiet = new HashSet<>();

  @Override
  public void init(
      Connection conn, String schema, String trigger, String table, boolean before, int type)
      throws SQLException {
    // By the trigger's name, not the table's: to add a column H2 copies the table, making its
    // triggers
    // anew on the copy while it still has a temporary name.
    kind = trigger.toLowerCase(Locale.ROOT).startsWith("vms_") ? "vm" : "worker";
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT COLUMN_NAME, ORDINAL_POSITION FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String column = rs.getString(1).toLowerCase(Locale.ROOT);
          int index = rs.getInt(2) - 1;
          if (column.equals("name")) {
            nameColumn = index;
          } else if (kind.equals("worker") && QUIET.contains(column)) {
            quiet.add(index);
          }
        }
      }
    }
  }

  @Override
  public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
    if (oldRow != null && newRow != null && sameButQuiet(oldRow, newRow)) {
      return;
    }
    Object[] row = newRow != null ? newRow : oldRow;
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO changes (id, kind, name, deleted, changed_at) VALUES (NEXT VALUE FOR change_seq, ?, ?, ?, CURRENT_TIMESTAMP)")) {
      ps.setString(1, kind);
      ps.setString(2, (String) row[nameColumn]);
      ps.setBoolean(3, newRow == null);
      ps.executeUpdate();
    }
  }

  private boolean sameButQuiet(Object[] before, Object[] after) {
    if (before.length != after.length) {
      return false;
    }
    for (int i = 0; i < before.length; i++) {
      if (!quiet.contains(i) && !equal(before[i], after[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean equal(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.equals(x, y);
    }
    return Objects.equals(a, b);
  }
}
