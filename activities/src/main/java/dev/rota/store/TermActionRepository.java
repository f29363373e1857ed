package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface TermActionRepository extends GenericRepository<TermActionRow, Long> {
  @Query("""
      INSERT INTO term_actions (id, kind, worker, task_id, vm, detail, created_at, attempts)
      VALUES (nextval('term_action_seq'), :kind, :worker, :taskId, :vm, :detail, :createdAt, 0)""")
  void add(String kind, @Nullable String worker, @Nullable String taskId, @Nullable String vm, @Nullable String detail, Instant createdAt);

  @Query("SELECT nextval('term_action_seq')")
  long nextId();

  /** {@link #add} with an id taken from {@link #nextId}, for a writer that carries the action out itself. */
  @Query("""
      INSERT INTO term_actions (id, kind, worker, task_id, vm, detail, created_at, attempts)
      VALUES (:id, :kind, :worker, :taskId, :vm, NULL, :createdAt, 0)""")
  void addWithId(long id, String kind, @Nullable String worker, @Nullable String taskId, @Nullable String vm, Instant createdAt);

  /** The oldest actions after {@code afterId}: one pass over the outbox tries each action once. */
  @Query("SELECT * FROM term_actions WHERE id > :afterId ORDER BY id LIMIT :limit")
  List<TermActionRow> after(long afterId, int limit);

  @Query("DELETE FROM term_actions WHERE id = :id")
  void done(long id);

  @Query("UPDATE term_actions SET attempts = attempts + 1, detail = :detail WHERE id = :id")
  void failedOnce(long id, String detail);

  @Query("SELECT COUNT(*) FROM term_actions")
  long pending();
}
