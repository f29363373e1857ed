package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmSetRepository extends CrudRepository<VmSetRow, String> {
  @Query("SELECT nextval('vm_seq')")
  long nextSeq();

  /** A page of sets and pools in creation order after {@code afterSeq}. */
  @Query("SELECT * FROM vm_sets WHERE seq > :afterSeq ORDER BY seq LIMIT :limit")
  List<VmSetRow> page(long afterSeq, int limit);

  /** {@link #page}, of the sets alone ({@code pools}: of the pools alone). */
  @Query(
      """
      SELECT * FROM vm_sets WHERE seq > :afterSeq AND (pool_max IS NOT NULL) = :pools
      ORDER BY seq LIMIT :limit""")
  List<VmSetRow> pageOf(boolean pools, long afterSeq, int limit);

  /**
   * Takes a pool's ordinals {@code from} to {@code to} (excluded) for new replicas; 0 when another
   * pass took them first.
   */
  @Query(
      "UPDATE vm_sets SET next_ordinal = :to WHERE name = :name AND next_ordinal = :from AND :to >= :from")
  int takeOrdinals(String name, int from, int to);

  /** The user asked for it to go; unconditional, as asking twice is asking once. */
  @Query("UPDATE vm_sets SET deleting = TRUE, version = version + 1 WHERE name = :name")
  int markDeleting(String name);

  /** The replica count alone (PATCH), unless the set is being deleted. */
  @Query(
      "UPDATE vm_sets SET replicas = :replicas, version = version + 1 WHERE name = :name AND deleting = FALSE")
  int resize(String name, int replicas);

  /**
   * The rollout of {@code templateVersion} progressed: {@code available} of its new replicas at
   * once, {@code at}; not if the set has a newer version by now.
   */
  @Query(
      """
      UPDATE vm_sets SET rollout_available = :available, rollout_progress_at = :at
      WHERE name = :name AND template_version = :templateVersion""")
  int rolloutProgressed(String name, int templateVersion, int available, java.time.Instant at);

  /**
   * The canaries of the rollout of {@code templateVersion} are promoted {@code at}: it goes on, its
   * deadline counted from then. 0 when the set has another version by now.
   */
  @Query(
      """
      UPDATE vm_sets SET rollout_promoted = TRUE, rollout_progress_at = :at, version = version + 1
      WHERE name = :name AND template_version = :templateVersion""")
  int promote(String name, int templateVersion, java.time.Instant at);

  /**
   * A user paused ({@code paused}) or resumed the set's rollouts {@code at}; the deadline of one
   * under way counts from then (it does not run while paused).
   */
  @Query(
      """
      UPDATE vm_sets SET rollout_paused = :paused, version = version + 1,
        rollout_progress_at = CASE WHEN rollout_progress_at IS NULL THEN rollout_progress_at
          ELSE CAST(:at AS TIMESTAMP WITH TIME ZONE) END
      WHERE name = :name AND deleting = FALSE""")
  int pauseRollouts(String name, boolean paused, java.time.Instant at);

  /** The rollout of {@code templateVersion} is over: it is the version a revert goes back to. */
  @Query(
      """
      UPDATE vm_sets SET stable_version = :templateVersion, rollout_available = 0,
        rollout_progress_at = NULL
      WHERE name = :name AND template_version = :templateVersion""")
  int rolledOut(String name, int templateVersion);

  /** Its workflow's word on what keeps the replicas from matching, written only when it changed. */
  @Query(
      """
      UPDATE vm_sets SET message = :message
      WHERE name = :name AND ((message IS NULL AND CAST(:message AS VARCHAR) IS NOT NULL)
        OR (message IS NOT NULL AND (CAST(:message AS VARCHAR) IS NULL OR message <> :message)))""")
  int recordMessage(String name, @Nullable String message);

  /**
   * Each set's spread and what rebalancing needs of it, for the scheduler's term: the templates are
   * not its business.
   */
  @Query("SELECT name, spread, replicas, max_unavailable, deleting FROM vm_sets")
  List<SetShape> shapes();

  @io.micronaut.core.annotation.Introspected
  record SetShape(String name, String spread, int replicas, int maxUnavailable, boolean deleting) {}
}
