package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.Optional;

/** PostgreSQL dialect everywhere: H2 runs in PostgreSQL mode, so one set of queries serves both. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ClusterStatusRepository extends CrudRepository<ClusterStatusRow, String> {
  /**
   * Marks a wake-up pending; true only for the caller that marked it, who then sends the signal.
   */
  @Query("UPDATE cluster_status SET wake_pending = TRUE WHERE id = :id AND wake_pending = FALSE")
  int claimWake(String id);

  /**
   * When the scheduler last came back after an outage (see {@code ListeningSince}); empty if never.
   */
  @Query(
      "SELECT listening_since FROM cluster_status WHERE id = :id AND listening_since IS NOT NULL")
  Optional<Instant> findListeningSince(String id);

  @Query("UPDATE cluster_status SET listening_since = :at WHERE id = :id")
  int markListeningSince(String id, Instant at);

  /** At the start of a term, before its snapshot: anything changed after this wakes it again. */
  @Query("UPDATE cluster_status SET wake_pending = FALSE WHERE id = :id")
  int clearWake(String id);
}
