package dev.rota.store;

import java.sql.SQLException;

/** Reading database failures the same way on PostgreSQL and H2. */
public final class Sql {
  private static final String UNIQUE_VIOLATION = "23505";

  private Sql() {}

  /** Whether the failure is a duplicate key, by SQLSTATE, which both databases share. */
  public static boolean isUniqueViolation(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }
}
