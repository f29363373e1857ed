package dev.rota.store;

import dev.rota.core.failure.Causes;
import java.sql.SQLException;

/** Reading database failures the same way on PostgreSQL and H2. */
public final class Sql {
  private static final String UNIQUE_VIOLATION = "23505";

  /**
   * H2's "connection is broken" (a remote H2 whose server or network went away) and "database is
   * already closed" (what its client then says when the connection is closed), which have no class
   * 08 state.
   */
  private static final java.util.Set<String> H2_CONNECTION_LOST =
      java.util.Set.of("90067", "90121");

  private Sql() {}

  /** Whether the failure is a duplicate key, by SQLSTATE, which both databases share. */
  public static boolean isUniqueViolation(Throwable failure) {
    return Causes.any(
        failure, t -> t instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState()));
  }

  /**
   * Whether the failure says the connection to the database was lost or never made: SQL state class
   * 08 ("connection exception": a refused connection among them; the driver says so, so a bare
   * ConnectException, which could be anyone's, is not taken for the database's), 57P01 to 57P03 the
   * server shutting down or starting, H2's broken or closed connection; a pooled connection the
   * server dropped says only that it is closed.
   */
  public static boolean isConnectionLost(Throwable failure) {
    return Causes.any(
        failure,
        t ->
            t instanceof java.sql.SQLTransientConnectionException
                || t instanceof SQLException sql && saysLost(sql));
  }

  private static boolean saysLost(SQLException sql) {
    String state = sql.getSQLState() == null ? "" : sql.getSQLState();
    return state.startsWith("08")
        || state.startsWith("57P")
        || H2_CONNECTION_LOST.contains(state)
        || "Connection is closed".equals(sql.getMessage());
  }
}
