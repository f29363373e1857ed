package dev.rota.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One statement run for many rows in one JDBC batch, written with the {@code :name} parameters of a
 * repository's {@code @Query}, so that the repository and the batch share one text. A term that
 * places a thousand VMs makes a few batches, not thousands of calls through the repositories, each
 * a round trip.
 */
public final class BatchStatement {
  /** A parameter, {@code :name}; not a PostgreSQL cast ({@code ::type}). */
  private static final Pattern PARAMETER = Pattern.compile("(?<!:):([A-Za-z][A-Za-z0-9]*)");

  private final String jdbcSql;
  private final List<String> names;

  private BatchStatement(String jdbcSql, List<String> names) {
    this.jdbcSql = jdbcSql;
    this.names = names;
  }

  /** The statement {@code sql}, its {@code :name} parameters to be bound by name. */
  public static BatchStatement of(String sql) {
    List<String> names = new ArrayList<>();
    Matcher m = PARAMETER.matcher(sql);
    StringBuilder jdbc = new StringBuilder();
    while (m.find()) {
      names.add(m.group(1));
      m.appendReplacement(jdbc, "?");
    }
    m.appendTail(jdbc);
    return new BatchStatement(jdbc.toString(), List.copyOf(names));
  }

  /**
   * Runs the statement once per row, in order, on {@code connection} (the caller's transaction);
   * each row names a value for every parameter (a missing name is a mistake, not a null). Returns
   * each run's count of rows changed.
   */
  public int[] run(Connection connection, List<? extends Map<String, ?>> rows) {
    if (rows.isEmpty()) {
      return new int[0];
    }
    try (PreparedStatement ps = connection.prepareStatement(jdbcSql)) {
      for (Map<String, ?> row : rows) {
        for (int i = 0; i < names.size(); i++) {
          String name = names.get(i);
          if (!row.containsKey(name)) {
            throw new IllegalArgumentException("no value for :" + name + " in " + jdbcSql);
          }
          ps.setObject(i + 1, jdbcValue(row.get(name)));
        }
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      for (int count : counts) {
        if (count == Statement.SUCCESS_NO_INFO) {
          // A driver rewriting the batch (PostgreSQL's reWriteBatchedInserts) would not say which
          // row did what.
          throw new IllegalStateException(
              "the database did not say what each row of a batch changed: " + jdbcSql);
        }
      }
      return counts;
    } catch (SQLException e) {
      throw new IllegalStateException(
          "a batch of " + rows.size() + " failed: " + e.getMessage(), e);
    }
  }

  /** Instants as JDBC 4.2 takes them for TIMESTAMP WITH TIME ZONE, on PostgreSQL and H2 alike. */
  private static Object jdbcValue(Object value) {
    return value instanceof Instant i ? OffsetDateTime.ofInstant(i, ZoneOffset.UTC) : value;
  }
}
