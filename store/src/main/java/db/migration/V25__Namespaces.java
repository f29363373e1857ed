package db.migration;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Namespaces: every VM, template and secret lives in one ({@code default} for all that were made
 * before), and each namespace keeps its quota and what its VMs hold against it. What the VMs of
 * {@code default} hold is counted here, from each VM's resources (JSON written by the store's
 * converter: {@code {"cpu":2,"memory":2048}}) and its root disk's size.
 */
public class V25__Namespaces extends BaseJavaMigration {
  private static final Pattern CPU = Pattern.compile("\"cpu\"\\s*:\\s*(\\d+)");
  private static final Pattern MEMORY = Pattern.compile("\"memory\"\\s*:\\s*(\\d+)");

  @Override
  public void migrate(Context context) throws Exception {
    Connection c = context.getConnection();
    try (Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE namespaces (
              name          VARCHAR(63)   NOT NULL PRIMARY KEY,
              description   VARCHAR(1024),
              quota_cpu     BIGINT,
              quota_memory  BIGINT,
              quota_vms     BIGINT,
              quota_disk_gi BIGINT,
              used_cpu      BIGINT        DEFAULT 0 NOT NULL,
              used_memory   BIGINT        DEFAULT 0 NOT NULL,
              used_vms      BIGINT        DEFAULT 0 NOT NULL,
              used_disk_gi  BIGINT        DEFAULT 0 NOT NULL,
              created_at    TIMESTAMP WITH TIME ZONE NOT NULL,
              updated_at    TIMESTAMP WITH TIME ZONE NOT NULL
          )""");
      s.execute("ALTER TABLE vms ADD COLUMN namespace VARCHAR(63) DEFAULT 'default' NOT NULL");
      s.execute(
          "ALTER TABLE templates ADD COLUMN namespace VARCHAR(63) DEFAULT 'default' NOT NULL");
      s.execute("ALTER TABLE secrets ADD COLUMN namespace VARCHAR(63) DEFAULT 'default' NOT NULL");
      s.execute("CREATE INDEX vms_by_namespace ON vms (namespace, seq)");
    }
    long cpu = 0;
    long memory = 0;
    long vms = 0;
    long disk = 0;
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT resources, disk_size_gi FROM vms")) {
      while (r.next()) {
        String resources = r.getString(1);
        cpu += number(CPU.matcher(resources));
        memory += number(MEMORY.matcher(resources));
        vms++;
        disk += r.getLong(2);
      }
    }
    try (PreparedStatement p =
        c.prepareStatement(
            "INSERT INTO namespaces (name, description, used_cpu, used_memory, used_vms,"
                + " used_disk_gi, created_at, updated_at)"
                + " VALUES ('default', 'Where what names no namespace lives.', ?, ?, ?, ?,"
                + " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")) {
      p.setLong(1, cpu);
      p.setLong(2, memory);
      p.setLong(3, vms);
      p.setLong(4, disk);
      p.executeUpdate();
    }
  }

  private static long number(Matcher m) {
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
