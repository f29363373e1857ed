package db.migration;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * The change feed that watches read: a row per write to a VM or a worker, written by a trigger in
 * the writer's own transaction, whoever the writer is (the API, a VM's workflow, the scheduler). A
 * worker's update that only moves its heartbeat or probe columns is not a change, nor is an update
 * that changes nothing. PostgreSQL's trigger is plpgsql; H2's is {@link
 * dev.rota.store.H2ChangeTrigger}: hence Java.
 */
public class V17__Changes extends BaseJavaMigration {
  private static final List<String> TABLE =
      List.of(
          "CREATE SEQUENCE change_seq",
          """
      CREATE TABLE changes (
          id         BIGINT       NOT NULL PRIMARY KEY,
          kind       VARCHAR(16)  NOT NULL,
          name       VARCHAR(63)  NOT NULL,
          deleted    BOOLEAN      NOT NULL,
          changed_at TIMESTAMP WITH TIME ZONE NOT NULL
      )""",
          "CREATE INDEX changes_by_time ON changes (changed_at)");

  private static final List<String> POSTGRES =
      List.of(
          """
      CREATE FUNCTION rota_record_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        quiet CONSTANT text[] := ARRAY['last_seen', 'last_probe_at', 'last_probe_ok', 'probe_failures', 'last_probe_error'];
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO changes (id, kind, name, deleted, changed_at) VALUES (nextval('change_seq'), TG_ARGV[0], OLD.name, TRUE, now());
          RETURN OLD;
        END IF;
        IF TG_OP = 'UPDATE' AND (to_jsonb(OLD) = to_jsonb(NEW)
            OR (TG_ARGV[0] = 'worker' AND to_jsonb(OLD) - quiet = to_jsonb(NEW) - quiet)) THEN
          RETURN NEW;
        END IF;
        INSERT INTO changes (id, kind, name, deleted, changed_at) VALUES (nextval('change_seq'), TG_ARGV[0], NEW.name, FALSE, now());
        RETURN NEW;
      END $$""",
          "CREATE TRIGGER vms_changes AFTER INSERT OR UPDATE OR DELETE ON vms FOR EACH ROW EXECUTE FUNCTION rota_record_change('vm')",
          "CREATE TRIGGER workers_changes AFTER INSERT OR UPDATE OR DELETE ON workers FOR EACH ROW EXECUTE FUNCTION rota_record_change('worker')");

  private static final List<String> H2 =
      List.of(
          "CREATE TRIGGER vms_changes AFTER INSERT, UPDATE, DELETE ON vms FOR EACH ROW CALL \"dev.rota.store.H2ChangeTrigger\"",
          "CREATE TRIGGER workers_changes AFTER INSERT, UPDATE, DELETE ON workers FOR EACH ROW CALL \"dev.rota.store.H2ChangeTrigger\"");

  @Override
  public void migrate(Context context) throws Exception {
    Connection c = context.getConnection();
    boolean postgres =
        c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
    try (Statement s = c.createStatement()) {
      for (String sql : TABLE) {
        s.execute(sql);
      }
      for (String sql : postgres ? POSTGRES : H2) {
        s.execute(sql);
      }
    }
  }
}
