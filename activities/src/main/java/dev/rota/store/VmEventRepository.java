package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmEventRepository extends GenericRepository<VmEventRow, Long> {
  @Query("INSERT INTO vm_events (id, vm_name, time, type, message) VALUES (nextval('vm_event_seq'), :vmName, :time, :type, :message)")
  void append(String vmName, Instant time, String type, String message);

  /** A page of one VM's events, oldest first, after event {@code afterId}. */
  @Query("SELECT * FROM vm_events WHERE vm_name = :vmName AND id > :afterId ORDER BY id LIMIT :limit")
  List<VmEventRow> page(String vmName, long afterId, int limit);

  @Query("DELETE FROM vm_events WHERE vm_name = :vmName")
  void deleteAllOf(String vmName);
}
