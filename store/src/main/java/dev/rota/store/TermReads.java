package dev.rota.store;

import io.micronaut.data.model.runtime.convert.AttributeConverter;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole-table reads of every term, straight off JDBC on the caller's connection. Through the
 * repositories, with many thousands of VMs, these reads took a large share of the host's CPU: every
 * column of every row mapped by name, and every JSON column parsed, each term.
 */
@Singleton
public class TermReads {
  static final String VMS =
      """
      SELECT name, seq, runtime, image, resources, labels, restart_policy, status, restart_count, avoid_worker,
             avoid_until, vm_set, failed_on, moving_from, old_copy_on, disconnect, checks, ready_generation,
             ready_since, disk_persistent, disk_on, migration, task_name, priority,
             evicted_generation, constraints, tolerations, affinities, namespace, disk_size_gi
      FROM vms""";
  static final String PLACED_TASKS =
      """
      SELECT id, vm, vm_seq, generation, worker, state, exit_code, message, placed_at, started_at, ended_at
      FROM vm_tasks""";
  static final String REPORTED_TASKS =
      """
      SELECT id, worker, task_id, state, exit_code, message, observed_at, ports, submission
      FROM agent_tasks WHERE worker IN (%s)""";

  /** Workers named in one IN list: well below any database's bound on a statement's parameters. */
  private static final int WORKERS_PER_READ = 1_000;

  private final Converters.Quantities quantities;
  private final Converters.Strings strings;
  private final Converters.DisconnectPolicy disconnect;
  private final Converters.PortNumbers ports;
  private final Converters.HealthChecks checks;
  private final Converters.Constraints constraints;
  private final Converters.Tolerations tolerations;
  private final Converters.Affinities affinities;

  /**
   * The entities' own converters read the JSON columns, so that a column reads the same either way.
   */
  public TermReads(
      Converters.Quantities quantities,
      Converters.Strings strings,
      Converters.DisconnectPolicy disconnect,
      Converters.PortNumbers ports,
      Converters.HealthChecks checks,
      Converters.Constraints constraints,
      Converters.Tolerations tolerations,
      Converters.Affinities affinities) {
    this.checks = checks;
    this.constraints = constraints;
    this.tolerations = tolerations;
    this.affinities = affinities;
    this.ports = ports;
    this.quantities = quantities;
    this.strings = strings;
    this.disconnect = disconnect;
  }

  /**
   * Whether the policy's text keeps its VM through a cut; each distinct text parsed once per read.
   */
  private boolean keeps(Map<String, Boolean> parsed, String text) {
    return text != null
        && parsed.computeIfAbsent(
            text,
            t -> dev.rota.agentapi.Disconnect.keeps(disconnect.convertToEntityValue(t, null)));
  }

  /** The list a JSON column's text says; each distinct text parsed once per read, and shared. */
  private static <T> List<T> list(
      Map<String, List<T>> parsed, String text, Converters.JsonList<T> converter) {
    return text == null
        ? List.of()
        : parsed.computeIfAbsent(text, t -> List.copyOf(converter.convertToEntityValue(t, null)));
  }

  /** Whether the checks' text has a readiness check; each distinct text parsed once per read. */
  private boolean checksReadiness(Map<String, Boolean> parsed, String text) {
    return text != null
        && parsed.computeIfAbsent(
            text,
            t -> {
              dev.rota.agentapi.Checks c = checks.convertToEntityValue(t, null);
              return c != null && c.readiness() != null;
            });
  }

  private interface Row<T> {
    T read(ResultSet r) throws SQLException;
  }

  /**
   * Every VM, as the scheduler reads it: only the columns it uses, each distinct resources or
   * labels text parsed once per read (VMs of one template share it).
   */
  public List<VmSchedulingRow> vms(Connection connection) {
    Map<String, Map<String, Long>> resources = new HashMap<>();
    Map<String, Map<String, String>> labels = new HashMap<>();
    Map<String, Boolean> disconnects = new HashMap<>();
    Map<String, Boolean> checked = new HashMap<>();
    Map<String, List<dev.rota.core.model.LabelConstraint>> rules = new HashMap<>();
    Map<String, List<dev.rota.agentapi.Toleration>> tolerated = new HashMap<>();
    Map<String, List<dev.rota.core.model.Affinity>> preferred = new HashMap<>();
    return read(
        connection,
        VMS,
        List.of(),
        r ->
            new VmSchedulingRow(
                r.getString("name"),
                r.getLong("seq"),
                r.getString("runtime"),
                r.getString("image"),
                shared(resources, r.getString("resources"), quantities),
                shared(labels, r.getString("labels"), strings),
                r.getString("restart_policy"),
                r.getString("status"),
                r.getInt("restart_count"),
                r.getString("avoid_worker"),
                instant(r, "avoid_until"),
                r.getString("vm_set"),
                r.getString("failed_on"),
                r.getString("moving_from"),
                r.getString("old_copy_on"),
                keeps(disconnects, r.getString("disconnect")),
                new VmReadiness(integer(r, "ready_generation"), instant(r, "ready_since"), null)
                    .awaited(
                        r.getString("status"),
                        r.getInt("restart_count"),
                        checksReadiness(checked, r.getString("checks"))),
                r.getBoolean("disk_persistent"),
                r.getString("disk_on"),
                VmTemplate.LIVE.equals(r.getString("migration")),
                r.getString("task_name"),
                r.getInt("priority"),
                Integer.valueOf(r.getInt("restart_count")).equals(integer(r, "evicted_generation")),
                list(rules, r.getString("constraints"), constraints),
                list(tolerated, r.getString("tolerations"), tolerations),
                list(preferred, r.getString("affinities"), affinities),
                r.getString("namespace"),
                integer(r, "disk_size_gi")));
  }

  /** Every task the scheduler placed, as {@link VmTaskRepository#findAll()} reads it. */
  public List<VmTaskRow> placedTasks(Connection connection) {
    return read(
        connection,
        PLACED_TASKS,
        List.of(),
        r ->
            new VmTaskRow(
                r.getString("id"),
                r.getString("vm"),
                r.getLong("vm_seq"),
                r.getInt("generation"),
                r.getString("worker"),
                r.getString("state"),
                integer(r, "exit_code"),
                r.getString("message"),
                instant(r, "placed_at"),
                instant(r, "started_at"),
                instant(r, "ended_at")));
  }

  /**
   * The tasks {@code workers}' agents last reported, as {@link
   * AgentTaskRepository#findByWorkerInList} reads them.
   */
  public List<AgentTaskRow> reportedTasks(Connection connection, Collection<String> workers) {
    List<String> names = List.copyOf(workers);
    List<AgentTaskRow> rows = new ArrayList<>();
    for (int from = 0; from < names.size(); from += WORKERS_PER_READ) {
      List<String> some = names.subList(from, Math.min(names.size(), from + WORKERS_PER_READ));
      String sql =
          REPORTED_TASKS.formatted(String.join(", ", Collections.nCopies(some.size(), "?")));
      rows.addAll(
          read(
              connection,
              sql,
              some,
              r ->
                  new AgentTaskRow(
                      r.getString("id"),
                      r.getString("worker"),
                      r.getString("task_id"),
                      r.getString("state"),
                      integer(r, "exit_code"),
                      r.getString("message"),
                      instant(r, "observed_at"),
                      ports.convertToEntityValue(r.getString("ports"), null),
                      r.getObject("submission") instanceof Number n ? n.longValue() : null)));
    }
    return rows;
  }

  private static <T> List<T> read(
      Connection connection, String sql, List<String> parameters, Row<T> row) {
    List<T> rows = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.size(); i++) {
        select.setString(i + 1, parameters.get(i));
      }
      try (ResultSet r = select.executeQuery()) {
        while (r.next()) {
          rows.add(row.read(r));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read for a term: " + e.getMessage(), e);
    }
    return rows;
  }

  /**
   * The map a JSON column's text says, parsed once per read and shared (so not to be changed) by
   * the rows with that text.
   */
  private static <V> Map<String, V> shared(
      Map<String, Map<String, V>> parsed,
      String text,
      AttributeConverter<Map<String, V>, String> converter) {
    return parsed.computeIfAbsent(
        text, t -> Collections.unmodifiableMap(converter.convertToEntityValue(t, null)));
  }

  private static Instant instant(ResultSet r, String column) throws SQLException {
    OffsetDateTime at = r.getObject(column, OffsetDateTime.class);
    return at == null ? null : at.toInstant();
  }

  private static Integer integer(ResultSet r, String column) throws SQLException {
    int value = r.getInt(column);
    return r.wasNull() ? null : value;
  }
}
