package db.migration;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * How a qemu VM's guest is booted and configured (a kernel to boot directly, its initrd and command line,
 * cloud-init user data), as one JSON document; null for a VM that gives none (every VM before this). On
 * H2 the change feed's trigger is made again: a trigger made before a column was added stops firing.
 */
public class V22__Guest extends BaseJavaMigration {
  @Override
  public void migrate(Context context) throws Exception {
    Connection c = context.getConnection();
    boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
    try (Statement s = c.createStatement()) {
      s.execute("ALTER TABLE vms ADD COLUMN guest TEXT");
      if (!postgres) {
        s.execute("DROP TRIGGER vms_changes");
        s.execute("CREATE TRIGGER vms_changes AFTER INSERT, UPDATE, DELETE ON vms FOR EACH ROW CALL \"dev.rota.store.H2ChangeTrigger\"");
      }
    }
  }
}
