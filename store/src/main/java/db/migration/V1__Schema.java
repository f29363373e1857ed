package db.migration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Rota's schema as release 0.1.0 drew it: the tables of {@code db/schema.sql} (portable SQL), then
 * the change feed's triggers, which differ by database: PostgreSQL's is plpgsql, H2's is {@link
 * dev.rota.store.H2ChangeTrigger}. Every later change to the schema is a migration after this one.
 *
 * <p>The change feed that watches read: a row per write to a VM or a worker, written by a trigger
 * in the writer's own transaction, whoever the writer is (the API, a VM's workflow, the scheduler).
 * A worker's update that only moves its heartbeat or probe columns is not a change, nor is an
 * update that changes nothing.
 */
public class V1__Schema extends BaseJavaMigration {
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
      for (String sql : statements("db/schema.sql")) {
        s.execute(sql);
      }
      for (String sql : postgres ? POSTGRES : H2) {
        s.execute(sql);
      }
    }
  }

  /** The file's statements: each ends with a semicolon at the end of a line; comments are lines. */
  static List<String> statements(String resource) throws IOException {
    String text;
    try (InputStream in = V1__Schema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("no " + resource + " on the class path");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        String statement = current.toString().strip();
        statements.add(statement.substring(0, statement.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      throw new IOException(resource + " ends inside a statement");
    }
    return statements;
  }
}
