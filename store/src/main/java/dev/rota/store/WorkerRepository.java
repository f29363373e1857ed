package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
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

  /** The columns of a {@link WorkerProbeRow}. */
  String PROBE_ROWS =
      "SELECT name, endpoint, agent_secret, certificate_sha256, health, last_seen, created_at,"
          + " last_probe_at, last_probe_ok, probe_failures, last_probe_error, flaky_until"
          + " FROM workers";

  /** Every worker as a term's probes and agent calls see it. */
  @Query(PROBE_ROWS)
  List<WorkerProbeRow> probeRows();

  /** {@link #probeRows} of the workers named. */
  @Query(PROBE_ROWS + " WHERE name IN (:names)")
  List<WorkerProbeRow> probeRowsNamed(java.util.Collection<String> names);

  /** Records a heartbeat; no version change, so that it never races the scheduler. */
  @Query("UPDATE workers SET last_seen = :seen WHERE name = :name")
  int heartbeat(String name, Instant seen);

  /**
   * A heartbeat with the images the agent holds now and the fetches it has under way (JSON, see
   * {@link WorkerImages}); no version change either.
   */
  @Query(
      "UPDATE workers SET last_seen = :seen, images = :images, pulls = :pulls WHERE name = :name")
  int heartbeatHolding(String name, Instant seen, String images, @Nullable String pulls);

  @Query("SELECT name, pulls FROM workers WHERE pulls IS NOT NULL AND name IN (:names)")
  List<WorkerPullsRow> pullsOf(java.util.Collection<String> names);

  @Query("UPDATE workers SET images = :images WHERE name = :name")
  int holding(String name, String images);

  @Query("SELECT name, images FROM workers WHERE images IS NOT NULL")
  List<WorkerImagesRow> allImages();

  @Query("SELECT name, images FROM workers WHERE images IS NOT NULL AND name IN (:names)")
  List<WorkerImagesRow> imagesOf(java.util.Collection<String> names);

  /**
   * A probe that answered resets its worker's failure count. No version change: it is an
   * observation. One row per statement, so that a term locks workers' rows in the order it chooses
   * (by name).
   */
  @Query(PROBE_ANSWERED)
  int probeAnswered(String name, Instant at);

  /**
   * A probe's answer, unless a later probe's is stored already: a term that stalled after asking (a
   * long pause) never writes over what a newer term saw.
   */
  String PROBE_ANSWERED =
      """
      UPDATE workers SET last_probe_at = :at, last_probe_ok = TRUE, probe_failures = 0, last_probe_error = NULL
      WHERE name = :name AND (last_probe_at IS NULL OR last_probe_at <= :at)""";

  @Query(PROBE_FAILED)
  int probeFailed(String name, Instant at, String error);

  /** A probe that failed, unless a later probe's outcome is stored already. */
  String PROBE_FAILED =
      """
      UPDATE workers SET last_probe_at = :at, last_probe_ok = FALSE, probe_failures = probe_failures + 1, last_probe_error = :error
      WHERE name = :name AND (last_probe_at IS NULL OR last_probe_at <= :at)""";

  /** Of {@code names}, the workers a probe later than {@code at} was stored for. */
  @Query("SELECT name FROM workers WHERE name IN (:names) AND last_probe_at > :at")
  List<String> probedAfter(java.util.Collection<String> names, Instant at);

  /**
   * The scheduler's health decision, applied only if nobody changed the worker since it was read.
   */
  @Query(
      "UPDATE workers SET health = :health, health_message = :message, flaky_until = :flakyUntil, version = version + 1 WHERE name = :name AND version = :version")
  int decideHealth(
      String name, long version, String health, String message, @Nullable Instant flakyUntil);

  /**
   * The term's line on what a draining worker still holds; an observation, so no version change.
   */
  @Query(
      "UPDATE workers SET drain_progress = :progress WHERE name = :name AND drain_deadline IS NOT NULL")
  int drainProgress(String name, String progress);

  @Query("SELECT health AS label, COUNT(*) AS total FROM workers GROUP BY health")
  List<Count> countByHealth();

  /** A task failed on {@code worker}: one more toward making it flaky. */
  @Query("INSERT INTO worker_task_failures (worker, failed_at) VALUES (:worker, :at)")
  int taskFailed(String worker, Instant at);

  /**
   * Task failures per worker since {@code since} and since the worker's last cool-down (a worker
   * made flaky by them starts afresh once it is back).
   */
  @Query(
      """
      SELECT f.worker AS label, COUNT(*) AS total FROM worker_task_failures f JOIN workers w ON w.name = f.worker
      WHERE f.failed_at > :since AND (w.flaky_until IS NULL OR f.failed_at > w.flaky_until)
      GROUP BY f.worker""")
  List<Count> taskFailuresSince(Instant since);

  @Query("DELETE FROM worker_task_failures WHERE worker = :worker")
  int forgetTaskFailuresOf(String worker);

  /**
   * Removes a worker still offline and not heard from since {@code lastSeen}, as the term read it.
   */
  @Query(
      "DELETE FROM workers WHERE name = :name AND health = 'offline' AND COALESCE(last_seen, created_at) = :lastSeen")
  int deleteIfSilentSince(String name, Instant lastSeen);

  @Query("DELETE FROM worker_task_failures WHERE failed_at <= :before")
  int forgetTaskFailures(Instant before);
}
