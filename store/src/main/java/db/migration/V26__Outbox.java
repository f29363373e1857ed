package db.migration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * The outbox goes by one name: the table {@code term_actions} becomes {@code outbox}, its index and
 * its id sequence with it. H2 cannot rename a sequence, so the new one starts where the old one was
 * (past every id already taken) and the old one is dropped: hence Java.
 */
public class V26__Outbox extends BaseJavaMigration {
  @Override
  public void migrate(Context context) throws Exception {
    Connection c = context.getConnection();
    try (Statement s = c.createStatement()) {
      long next;
      try (ResultSet rs = s.executeQuery("SELECT nextval('term_action_seq')")) {
        rs.next();
        next = rs.getLong(1);
      }
      try (ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(id), 0) + 1 FROM term_actions")) {
        rs.next();
        next = Math.max(next, rs.getLong(1));
      }
      s.execute("ALTER TABLE term_actions RENAME TO outbox");
      s.execute("ALTER INDEX term_actions_by_vm RENAME TO outbox_by_vm");
      s.execute("CREATE SEQUENCE outbox_seq START WITH " + next);
      s.execute("DROP SEQUENCE term_action_seq");
    }
  }
}
