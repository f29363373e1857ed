package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmRepository extends CrudRepository<VmRow, String> {
  @Query("SELECT nextval('vm_seq')")
  long nextSeq();

  /**
   * A page of VMs in submission order after {@code afterSeq}, optionally only one status or one
   * worker. Ordering by the submission sequence keeps pages stable while VMs are added.
   */
  @Query("""
      SELECT * FROM vms
      WHERE seq > :afterSeq
        AND (CAST(:status AS VARCHAR) IS NULL OR status = :status)
        AND (CAST(:worker AS VARCHAR) IS NULL OR worker = :worker)
      ORDER BY seq LIMIT :limit""")
  List<VmRow> page(long afterSeq, @Nullable String status, @Nullable String worker, int limit);

  List<VmRow> findByWorkerInListAndStatusInList(Collection<String> worker, Collection<String> status);

  /** Places a pending VM, unless it changed since the term read it. */
  @Query("UPDATE vms SET status = 'scheduled', worker = :worker, scheduled_at = :at, status_message = :message, exit_code = NULL, version = version + 1 WHERE name = :name AND version = :version AND status = 'pending'")
  int place(String name, long version, String worker, Instant at, String message);

  /** Why a VM still waits; written only when it changed, and only while it is pending. */
  @Query("UPDATE vms SET status_message = :message WHERE name = :name AND status = 'pending' AND (status_message IS NULL OR status_message <> :message)")
  int explainPending(String name, String message);

  @Query("UPDATE vms SET status = 'running', started_at = :at, status_message = :message, version = version + 1 WHERE name = :name AND worker = :worker AND status = 'scheduled'")
  int markRunning(String name, String worker, Instant at, String message);

  /** The VM's task ended, failed or vanished: it is {@code stopped} or {@code failed} on that worker. */
  @Query("UPDATE vms SET status = :status, exit_code = :exitCode, finished_at = :at, status_message = :message, version = version + 1 WHERE name = :name AND worker = :worker AND status IN ('scheduled', 'running')")
  int markEnded(String name, String worker, String status, @Nullable Integer exitCode, Instant at, String message);

  /** Pending again as a new generation; the VM's workflow owns this decision, so no condition. */
  @Query("UPDATE vms SET status = 'pending', worker = NULL, restart_count = :restartCount, status_message = :message, scheduled_at = NULL, started_at = NULL, version = version + 1 WHERE name = :name")
  int requeue(String name, int restartCount, String message);

  /**
   * Gives a placement back: the task could not be started there. Pending again, and that worker
   * avoided for this VM until {@code avoidUntil}.
   */
  @Query("UPDATE vms SET status = 'pending', worker = NULL, scheduled_at = NULL, status_message = :message, avoid_worker = :worker, avoid_until = :avoidUntil, version = version + 1 WHERE name = :name AND worker = :worker AND status = 'scheduled'")
  int giveBack(String name, String worker, String message, Instant avoidUntil);

  @Query("SELECT status AS label, COUNT(*) AS total FROM vms GROUP BY status")
  List<Count> countByStatus();
}
