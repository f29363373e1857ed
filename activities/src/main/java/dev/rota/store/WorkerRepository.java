package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface WorkerRepository extends CrudRepository<WorkerRow, String> {
  /** A page of workers in name order, after {@code afterName} (empty string for the first page). */
  @Query("SELECT * FROM workers WHERE name > :afterName ORDER BY name LIMIT :limit")
  List<WorkerRow> page(String afterName, int limit);

  /** Records a heartbeat; no version change, so that it never races the scheduler. */
  @Query("UPDATE workers SET last_seen = :seen WHERE name = :name")
  int heartbeat(String name, Instant seen);

  @Query("SELECT health AS label, COUNT(*) AS total FROM workers GROUP BY health")
  List<Count> countByHealth();
}
