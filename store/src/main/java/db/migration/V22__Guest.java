package db.migration;

import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * How a qemu VM's guest is booted and configured (a kernel to boot directly, its initrd and command
 * line, cloud-init user data), as one JSON document; null for a VM that gives none (every VM before
 * this). A Java migration because it was one when first applied: Flyway refuses a version whose
 * type changed.
 */
public class V22__Guest extends BaseJavaMigration {
  @Override
  public void migrate(Context context) throws Exception {
    try (Statement s = context.getConnection().createStatement()) {
      s.execute("ALTER TABLE vms ADD COLUMN guest TEXT");
    }
  }
}
