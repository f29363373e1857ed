package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;

/**
 * The change feed, written by triggers, and by a pool's claim for the replica's name it takes away
 * (its trigger sees an update of the new name); read by watches, pruned by the scheduler.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ChangeRepository extends GenericRepository<ChangeRow, Long> {
  /** How long changes are kept: a watch resumed from an older one must list again. */
  java.time.Duration RETAINED = java.time.Duration.ofHours(1);

  /** The changes of one kind after {@code afterId}, oldest first. */
  @Query("SELECT * FROM changes WHERE id > :afterId AND kind = :kind ORDER BY id LIMIT :limit")
  List<ChangeRow> after(long afterId, String kind, int limit);

  /** Every change after {@code afterId}, of any kind: what tells a watch which ids are taken. */
  @Query("SELECT id FROM changes WHERE id > :afterId ORDER BY id LIMIT :limit")
  List<Long> idsAfter(long afterId, int limit);

  /** A VM gone under {@code name}: renamed by a claim. */
  @Query(
      "INSERT INTO changes (id, kind, name, deleted, changed_at) VALUES (nextval('change_seq'), 'vm', :name, TRUE, :at)")
  void vmGone(String name, Instant at);

  @Query("SELECT MAX(id) FROM changes")
  @Nullable
  Long lastId();

  @Query("SELECT MIN(id) FROM changes")
  @Nullable
  Long firstId();

  /**
   * Forgets changes older than {@code before}, the newest always kept: it says how far the feed has
   * come.
   */
  @Query("DELETE FROM changes WHERE changed_at < :before AND id < (SELECT MAX(id) FROM changes)")
  int forgetBefore(Instant before);
}
