package dev.rota.store;

import io.micronaut.core.type.Argument;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every VM as the scheduler reads it each term, straight off JDBC: only the columns it uses, and each
 * distinct resources or labels text parsed once per read (VMs of one template share them). Read as
 * entities through the repository, 10,000 VMs took 6.5% of the machine's CPU at 1,000 x 10,000 (thirty
 * columns mapped by name and four JSON columns parsed a VM, every term).
 */
@Singleton
public class VmSchedulingReads {
  static final String ALL = """
      SELECT name, seq, runtime, image, resources, labels, restart_policy, status, restart_count, avoid_worker,
             avoid_until, vm_set, failed_on, moving_from
      FROM vms""";

  private static final Argument<Map<String, Long>> QUANTITIES = Argument.mapOf(String.class, Long.class);
  private static final Argument<Map<String, String>> STRINGS = Argument.mapOf(String.class, String.class);

  private final JsonColumns json;

  public VmSchedulingReads(JsonColumns json) {
    this.json = json;
  }

  /** Every VM, on {@code connection} (the caller's transaction). */
  public List<VmSchedulingRow> all(Connection connection) {
    Map<String, Map<String, Long>> resources = new HashMap<>();
    Map<String, Map<String, String>> labels = new HashMap<>();
    List<VmSchedulingRow> rows = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(ALL); ResultSet r = select.executeQuery()) {
      while (r.next()) {
        rows.add(new VmSchedulingRow(
            r.getString("name"),
            r.getLong("seq"),
            r.getString("runtime"),
            r.getString("image"),
            shared(resources, r.getString("resources"), QUANTITIES),
            shared(labels, r.getString("labels"), STRINGS),
            r.getString("restart_policy"),
            r.getString("status"),
            r.getInt("restart_count"),
            r.getString("avoid_worker"),
            instant(r.getObject("avoid_until", OffsetDateTime.class)),
            r.getString("vm_set"),
            r.getString("failed_on"),
            r.getString("moving_from")));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the VMs for a term: " + e.getMessage(), e);
    }
    return rows;
  }

  /** The map a JSON column's text says, parsed once per read and shared (so not to be changed) by the VMs with that text. */
  private <V> Map<String, V> shared(Map<String, Map<String, V>> parsed, String text, Argument<Map<String, V>> type) {
    if (text == null) {
      return Map.of();
    }
    return parsed.computeIfAbsent(text, t -> Collections.unmodifiableMap(json.read(t, type)));
  }

  private static Instant instant(OffsetDateTime at) {
    return at == null ? null : at.toInstant();
  }
}
