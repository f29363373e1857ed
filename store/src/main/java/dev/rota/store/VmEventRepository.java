package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmEventRepository extends GenericRepository<VmEventRow, Long> {
  /**
   * The events a VM keeps, the newest: a VM that restarts every few seconds for a year logs without
   * end.
   */
  int KEPT_PER_VM = 1_000;

  /** Adds an event to the VM's log, dropping its oldest beyond {@link #KEPT_PER_VM}. */
  default void append(String vmName, Instant time, String type, String message) {
    insert(vmName, time, type, message);
    keepNewest(vmName, KEPT_PER_VM);
  }

  /** {@link #insert}'s and {@link #keepNewest}'s statements, for many VMs' events as batches. */
  String INSERT =
      "INSERT INTO vm_events (id, vm_name, time, type, message) VALUES (nextval('vm_event_seq'), :vmName, :time, :type, :message)";

  String KEEP_NEWEST =
      """
      DELETE FROM vm_events WHERE vm_name = :vmName AND id < (
        SELECT MIN(id) FROM (SELECT id FROM vm_events WHERE vm_name = :vmName ORDER BY id DESC LIMIT :kept) newest)""";

  @Query(INSERT)
  void insert(String vmName, Instant time, String type, String message);

  /**
   * Deletes the VM's events older than its {@code kept} newest; an index walk of at most {@code
   * kept} rows.
   */
  @Query(KEEP_NEWEST)
  int keepNewest(String vmName, int kept);

  /** A page of one VM's events, oldest first, after event {@code afterId}. */
  @Query(
      "SELECT * FROM vm_events WHERE vm_name = :vmName AND id > :afterId ORDER BY id LIMIT :limit")
  List<VmEventRow> page(String vmName, long afterId, int limit);

  /** A claimed pool replica's events, now its new name's. */
  @Query("UPDATE vm_events SET vm_name = :to WHERE vm_name = :from")
  int rename(String from, String to);

  /** Deletes every event of each of {@code vmNames}. */
  @Query("DELETE FROM vm_events WHERE vm_name IN (:vmNames)")
  void deleteAllOfIn(java.util.Collection<String> vmNames);

  /** Every event of each of {@code vmNames}, oldest first. */
  @Query("SELECT * FROM vm_events WHERE vm_name IN (:vmNames) ORDER BY id")
  List<VmEventRow> allOf(java.util.Collection<String> vmNames);
}
