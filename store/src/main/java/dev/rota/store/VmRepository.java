package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmRepository extends CrudRepository<VmRow, String> {
  /**
   * The VM's submission and newest task event, and whether its workflow has yet to be started,
   * without reading its row: empty when there is no such VM.
   */
  @Query(
      """
      SELECT v.seq, v.task_event_id, v.status,
             EXISTS (SELECT 1 FROM workflow_starts s WHERE s.vm = v.name) AS workflow_owed
      FROM vms v WHERE v.name = :name""")
  Optional<VmProgress> progressOf(String name);

  /** When submission {@code seq} of the VM was made, without reading (and decoding) its row. */
  @Query("SELECT created_at FROM vms WHERE name = :name AND seq = :seq")
  Optional<java.time.Instant> createdAtOf(String name, long seq);

  /** The worker a finished move's old copy is being stopped on, if the VM has one. */
  @Query("SELECT old_copy_on FROM vms WHERE name = :name AND old_copy_on IS NOT NULL")
  Optional<String> oldCopyOn(String name);

  @Query("SELECT nextval('vm_seq')")
  long nextSeq();

  /** The sequence's next {@code count} submission numbers, in one read, for a batch of VMs. */
  @Query("SELECT nextval('vm_seq') FROM generate_series(1, :count)")
  List<Long> nextSeqs(int count);

  /**
   * A page of VMs in submission order after {@code afterSeq}, optionally only one status, one
   * worker or one set's. Ordering by the submission sequence keeps pages stable while VMs are
   * added. Each filter has a query of its own, led by the column its index starts with: an optional
   * filter written as {@code (:worker IS NULL OR worker = :worker)} cannot use an index, and
   * listing one worker's VMs walked every VM (at 10,000 VMs, the API's most costly request).
   */
  default List<VmRow> page(
      long afterSeq,
      @Nullable String status,
      @Nullable String worker,
      @Nullable String vmSet,
      int limit) {
    if (vmSet != null) {
      return pageOfSet(vmSet, afterSeq, status, worker, limit);
    }
    if (worker != null) {
      return pageOfWorker(worker, afterSeq, status, limit);
    }
    return status != null ? pageOfStatus(status, afterSeq, limit) : pageOfAll(afterSeq, limit);
  }

  @Query("SELECT * FROM vms WHERE seq > :afterSeq ORDER BY seq LIMIT :limit")
  List<VmRow> pageOfAll(long afterSeq, int limit);

  @Query("SELECT * FROM vms WHERE status = :status AND seq > :afterSeq ORDER BY seq LIMIT :limit")
  List<VmRow> pageOfStatus(String status, long afterSeq, int limit);

  @Query(
      """
      SELECT * FROM vms
      WHERE worker = :worker AND seq > :afterSeq AND (CAST(:status AS VARCHAR) IS NULL OR status = :status)
      ORDER BY seq LIMIT :limit""")
  List<VmRow> pageOfWorker(String worker, long afterSeq, @Nullable String status, int limit);

  @Query(
      """
      SELECT * FROM vms
      WHERE namespace = :namespace AND seq > :afterSeq
        AND (CAST(:status AS VARCHAR) IS NULL OR status = :status)
      ORDER BY seq LIMIT :limit""")
  List<VmRow> pageOfNamespace(String namespace, long afterSeq, @Nullable String status, int limit);

  @Query(
      """
      SELECT * FROM vms
      WHERE vm_set = :vmSet AND seq > :afterSeq
        AND (CAST(:status AS VARCHAR) IS NULL OR status = :status)
        AND (CAST(:worker AS VARCHAR) IS NULL OR worker = :worker)
      ORDER BY seq LIMIT :limit""")
  List<VmRow> pageOfSet(
      String vmSet, long afterSeq, @Nullable String status, @Nullable String worker, int limit);

  /**
   * Of the submissions {@code seqs}, those a set's pass asked to delete at {@code since} or after
   * (a VM made anew under a name is another submission, never asked).
   */
  @Query("SELECT seq FROM vms WHERE seq IN (:seqs) AND deletion_asked_at >= :since")
  List<Long> deletionAskedSince(Collection<Long> seqs, Instant since);

  /**
   * Notes that a set's pass asked the workflows of submissions {@code seqs} to delete them {@code
   * at}; the rows' versions stay, so that no writer of them fails for it.
   */
  @Query("UPDATE vms SET deletion_asked_at = :at WHERE seq IN (:seqs)")
  void deletionAsked(Collection<Long> seqs, Instant at);

  /**
   * Forgets that submissions {@code seqs} were asked to delete themselves: the requests were lost.
   */
  @Query("UPDATE vms SET deletion_asked_at = NULL WHERE seq IN (:seqs)")
  void deletionUnasked(Collection<Long> seqs);

  /** A set's replicas, lowest ordinal first. */
  @Query("SELECT * FROM vms WHERE vm_set = :vmSet ORDER BY set_ordinal")
  List<VmRow> replicasOf(String vmSet);

  /**
   * Whether {@code vmSet} is being deleted and still has replicas: a replica's going is news to it
   * only once it is the last.
   */
  @Query(
      """
      SELECT EXISTS (SELECT 1 FROM vm_sets WHERE name = :vmSet AND deleting
        AND EXISTS (SELECT 1 FROM vms WHERE vm_set = :vmSet))""")
  boolean deletingSetHasReplicasLeft(String vmSet);

  /**
   * The replicas of {@code vmSet} made of its versions {@code from} count as of version {@code to}.
   */
  @Query("UPDATE vms SET set_version = :to WHERE vm_set = :vmSet AND set_version IN (:from)")
  void adoptSetVersion(String vmSet, Collection<Integer> from, int to);

  /** How many of a set's replicas are made of its template's {@code version}. */
  @Query("SELECT COUNT(*) FROM vms WHERE vm_set = :vmSet AND set_version = :version")
  long countReplicasOfVersion(String vmSet, int version);

  /** How many of a set's replicas are in each status. */
  @Query("SELECT status AS label, COUNT(*) AS total FROM vms WHERE vm_set = :vmSet GROUP BY status")
  List<Count> countReplicasByStatus(String vmSet);

  /** How many of a set's replicas run with their readiness check passing. */
  @Query(
      """
      SELECT COUNT(*) FROM vms WHERE vm_set = :vmSet AND status = 'running'
      AND ready_generation = restart_count AND ready_since IS NOT NULL""")
  long countReadyReplicas(String vmSet);

  /**
   * The pending replica of a set with the lowest ordinal: its reason speaks for the set's waiting
   * ones.
   */
  @Query(
      "SELECT * FROM vms WHERE vm_set = :vmSet AND status = 'pending' ORDER BY set_ordinal LIMIT 1")
  java.util.Optional<VmRow> firstPendingReplica(String vmSet);

  @Query("SELECT * FROM vms WHERE worker IN (:workers) AND status IN (:statuses)")
  List<VmRow> onWorkersIn(Collection<String> workers, Collection<String> statuses);

  List<VmRow> findByNameInList(Collection<String> names);

  @Query("DELETE FROM vms WHERE name IN (:names)")
  void deleteAllNamed(Collection<String> names);

  /**
   * A pool's replicas that are {@code status} (running, or suspended for a pool that keeps them
   * so), oldest first: those a claim may take.
   */
  @Query("SELECT * FROM vms WHERE vm_set = :pool AND status = :status ORDER BY seq")
  List<VmRow> poolReplicas(String pool, String status);

  /**
   * Makes a pool's replica {@code from}, {@code status} (running, or suspended), the user's VM
   * {@code to}: renamed, no longer the pool's, its tasks (and its disk) still carrying the
   * replica's name, with its lease (a pool's replicas wait without one): how long it may run, what
   * becomes of it then, and when it runs out (null: it begins when the VM next runs). 0 when
   * another claim took it first, or it is no longer {@code status}; a unique violation when {@code
   * to} is taken.
   */
  @Query(
      """
      UPDATE vms SET name = :to, vm_set = NULL, set_ordinal = NULL, task_name = :from,
        claimed_from = :pool, standby = FALSE, max_run_seconds = :maxRunSeconds,
        on_expiry = :onExpiry, lease_expires_at = :leaseExpiresAt, version = version + 1
      WHERE name = :from AND seq = :seq AND vm_set = :pool AND status = :status""")
  int claim(
      String from,
      long seq,
      String pool,
      String to,
      String status,
      @Nullable Integer maxRunSeconds,
      @Nullable String onExpiry,
      @Nullable Instant leaseExpiresAt);

  /** How many VMs claimed from a pool exist: they count against its {@code max}. */
  @Query("SELECT COUNT(*) FROM vms WHERE claimed_from = :pool")
  long countClaimedFrom(String pool);

  /**
   * The VMs whose tasks carry one of {@code names} on the agents: each VM's own name, or for a VM
   * claimed from a pool the replica's. Two indexed looks, not one OR: every task report reads this,
   * and an OR across two columns can take a database to the whole table.
   */
  @Query(
      """
      SELECT * FROM vms WHERE name IN (:names) AND task_name IS NULL
      UNION ALL SELECT * FROM vms WHERE task_name IN (:names)""")
  List<VmRow> ofTasksNamed(Collection<String> names);

  /**
   * The VM whose tasks carry {@code taskName}, of submission {@code submission} (0: not said, the
   * newest).
   */
  default java.util.Optional<VmRow> ofTask(String taskName, long submission) {
    return ofTasksNamed(List.of(taskName)).stream()
        .filter(v -> submission == 0 || v.seq() == submission)
        .max(java.util.Comparator.comparingLong(VmRow::seq));
  }

  /** The VMs whose persistent disks the workers hold, by name. */
  @Query("SELECT * FROM vms WHERE disk_on IN (:workers) ORDER BY name")
  List<VmRow> withDisksOn(Collection<String> workers);

  /**
   * Why a VM still waits (the scheduler's); written only when it changed, and only while it is
   * pending.
   */
  @Query(
      "UPDATE vms SET pending_reason = :reason, fits_nowhere = :fitsNowhere WHERE name = :name AND status = 'pending' AND (pending_reason IS NULL OR pending_reason <> :reason)")
  int explainPending(String name, String reason, boolean fitsNowhere);

  /**
   * How its task is getting on while it starts (an image's fetch, as its agent reports it): its
   * status message, while it is pending or scheduled and of generation {@code :generation}, only
   * when it changed.
   */
  @Query(
      """
      UPDATE vms SET status_message = :message, pending_reason = NULL, fits_nowhere = FALSE WHERE name = :name AND seq = :seq
      AND restart_count = :generation AND status IN ('pending', 'scheduled')
      AND (status_message IS NULL OR status_message <> :message)""")
  int starting(String name, long seq, int generation, String message);

  /**
   * What its readiness check says of its running task of generation {@code :generation}, as its
   * agent reported it; only while that task is its current one.
   */
  @Query(
      """
      UPDATE vms SET ready_generation = :generation, ready_since = :since, readiness_message = :message
      WHERE name = :name AND seq = :seq AND restart_count = :generation AND status = 'running'""")
  int readiness(
      String name,
      long seq,
      int generation,
      @Nullable java.time.Instant since,
      @Nullable String message);

  /** It waits no longer: the scheduler placed it. */
  @Query(PLACED)
  int placed(String name);

  /**
   * The term fails VMs over from their offline worker {@code :from}, as one batch: each one's next
   * generation is its task, which the term places elsewhere (its workflow records the rest when it
   * hears). Only while it still wants that task there and is not moving.
   */
  String FAIL_OVER =
      """
      UPDATE vms SET restart_count = :generation + 1, pending_reason = NULL, fits_nowhere = FALSE, status_message = :message,
        version = version + 1
      WHERE name = :name AND seq = :seq AND restart_count = :generation AND status NOT IN ('pending', 'stopping', 'stopped', 'failed', 'suspended')
        AND worker = :from AND moving_from IS NULL""";

  /**
   * Its persistent disk is on {@code worker}, where the term placed its first task: it stays there.
   */
  @Query(
      "UPDATE vms SET disk_on = :worker WHERE name = :name AND seq = :seq AND disk_persistent AND disk_on IS NULL")
  int diskOn(String name, long seq, String worker);

  /**
   * Its memory is saved on {@code worker}, which it resumes on: that worker holds it as it holds a
   * persistent disk.
   */
  @Query(
      "UPDATE vms SET memory_saved = TRUE, disk_on = COALESCE(disk_on, :worker) WHERE name = :name AND seq = :seq")
  int memorySaved(String name, long seq, String worker);

  /**
   * It moves with its persistent disk: its next task is placed on any worker and copies the disk
   * from the one that holds it now, which keeps it until that task runs.
   */
  @Query(
      "UPDATE vms SET disk_from = disk_on, disk_on = NULL WHERE name = :name AND seq = :seq AND disk_persistent AND disk_on IS NOT NULL")
  int moveDisk(String name, long seq);

  /**
   * Placed on {@code to} while its disk (or saved memory) is on {@code from}: its task there copies
   * it from {@code from}, which keeps it until that task runs.
   */
  @Query(
      "UPDATE vms SET disk_from = disk_on, disk_on = :to WHERE name = :name AND seq = :seq AND disk_on = :from")
  int moveDiskTo(String name, long seq, String from, String to);

  /**
   * Its saved memory is given to the task that resumes it: a VM without a persistent disk holds its
   * worker no longer.
   */
  @Query(
      "UPDATE vms SET memory_saved = FALSE, disk_on = CASE WHEN disk_persistent THEN disk_on END WHERE name = :name AND seq = :seq AND memory_saved")
  int memoryUsed(String name, long seq);

  /** {@link #startMove}'s statement, for a term's moves as one batch. */
  String START_MOVE =
      """
      UPDATE vms SET restart_count = :generation + 1, moving_from = :from, status_message = :message,
        version = version + 1
      WHERE name = :name AND seq = :seq AND restart_count = :generation AND status = 'running' AND worker = :from
        AND moving_from IS NULL""";

  /**
   * A move of a VM that moves live: its disk goes with it from {@code from} to {@code to}, whose
   * new copy pulls it (and the running VM) from there. A move of any other VM changes nothing here.
   */
  String LIVE_MOVE_DISK =
      """
      UPDATE vms SET disk_from = disk_on, disk_on = :to
      WHERE name = :name AND seq = :seq AND migration = 'live' AND disk_persistent AND disk_on = :from""";

  /** {@link #placed}'s statement, for a term's placements as one batch. */
  String PLACED =
      "UPDATE vms SET pending_reason = NULL, fits_nowhere = FALSE WHERE name = :name AND pending_reason IS NOT NULL";

  /**
   * Its task could not be started on {@code worker}: the scheduler avoids that worker for it until
   * {@code until}.
   */
  @Query("UPDATE vms SET avoid_worker = :worker, avoid_until = :until WHERE name = :name")
  int avoid(String name, String worker, Instant until);

  /**
   * A status its workflow decided (stopping, stopped), with why. A stop drops the memory a
   * suspended VM saved: a VM without a persistent disk then holds its worker no longer.
   */
  @Query(
      "UPDATE vms SET status = :status, status_message = :message, restart_at = NULL, version = version + 1,"
          + " memory_saved = CASE WHEN :status = 'stopped' THEN FALSE ELSE memory_saved END,"
          + " disk_on = CASE WHEN :status = 'stopped' AND NOT disk_persistent THEN NULL ELSE disk_on END"
          + " WHERE name = :name"
          + OF_SUBMISSION)
  int recordStatus(String name, long submission, String status, String message);

  /**
   * The condition that makes a VM workflow's write change the VM only while the name holds the
   * workflow's submission; a submission of 0 matches whatever VM has the name.
   */
  String OF_SUBMISSION = " AND (:submission = 0 OR seq = :submission)";

  /** Whether the name holds that submission (any, for 0): 1 if so, else 0. */
  @Query("SELECT COUNT(*) FROM vms WHERE name = :name" + OF_SUBMISSION)
  long countOf(String name, long submission);

  /**
   * The VM ended and its workflow restarts it at {@code at}: until then it says so. Any status its
   * workflow records next (the restart's pending included) clears it.
   */
  @Query(
      "UPDATE vms SET restart_at = :at, version = version + 1 WHERE name = :name" + OF_SUBMISSION)
  int restartAt(String name, long submission, Instant at);

  /**
   * What task events made of the VM, as its workflow decided; only for the generation it names, and
   * never over what later events made of it. A write of an earlier lifecycle can arrive after a
   * later one: a local activity whose workflow task was lost is carried out again by the next,
   * while the first attempt's write still waits in the group commit (under heavy load a VM was left
   * `scheduled` for good after its `running` had been recorded). On the event already recorded,
   * only a status decided since is written: the same status is the same record again (the start its
   * agent reported, {@link #reportedRunning}, or an attempt carried out twice), and another version
   * and change-feed entry for each VM would be all its write did.
   */
  @Query(
      """
      UPDATE vms SET status = :status, worker = :worker, status_message = :message, exit_code = :exitCode,
        task_event_id = :taskEventId, scheduled_at = :scheduledAt, started_at = :startedAt, finished_at = :finishedAt,
        restart_at = NULL, version = version + 1
      WHERE name = :name AND restart_count = :restartCount
        AND (task_event_id < :taskEventId OR (task_event_id = :taskEventId AND status <> :status))"""
          + OF_SUBMISSION)
  int recordLifecycle(
      String name,
      long submission,
      int restartCount,
      String status,
      @Nullable String worker,
      @Nullable String message,
      @Nullable Integer exitCode,
      long taskEventId,
      @Nullable Instant scheduledAt,
      @Nullable Instant startedAt,
      @Nullable Instant finishedAt);

  /**
   * The agent says the VM's task runs: the read model says so at once, as a kubelet writes its
   * pod's phase, rather than once the VM's workflow has heard (the notifier tells it the row shows
   * the start, and it records nothing; a record of it all the same, with the same {@code
   * taskEventId}, changes nothing). Only at that generation and after an earlier task event, and
   * over what the workflow left pending or scheduled, or running where a failover (no move) took
   * the VM to this generation: never over a status the workflow decided (stopping, stopped,
   * failed), a running VM's move, or later news.
   */
  String REPORTED_RUNNING =
      """
      UPDATE vms SET status = 'running', worker = :worker, status_message = :message, task_event_id = :taskEventId,
        scheduled_at = :scheduledAt, started_at = :startedAt, version = version + 1, disk_from = NULL
      WHERE name = :name AND seq = :seq AND restart_count = :generation AND task_event_id < :taskEventId
        AND (status IN ('pending', 'scheduled') OR (status = 'running' AND moving_from IS NULL))""";

  @Query(REPORTED_RUNNING)
  int reportedRunning(
      String name,
      long seq,
      int generation,
      String worker,
      @Nullable String message,
      long taskEventId,
      Instant scheduledAt,
      Instant startedAt);

  /**
   * Pending again as a new generation, preferring a worker other than {@code failedOn} (null: any),
   * its lease running out at {@code leaseExpiresAt} (null: none under way, as after a user's
   * start); the VM's workflow owns this decision, so no condition.
   */
  @Query(
      "UPDATE vms SET status = 'pending', pending_since = :now, worker = NULL, restart_count = :restartCount, status_message = :message, exit_code = NULL, scheduled_at = NULL, started_at = NULL, restart_at = NULL, failed_on = :failedOn, moving_from = NULL, lease_expires_at = :leaseExpiresAt, version = version + 1 WHERE name = :name"
          + OF_SUBMISSION)
  int requeue(
      String name,
      long submission,
      int restartCount,
      String message,
      @Nullable String failedOn,
      Instant now,
      @Nullable Instant leaseExpiresAt);

  /** When the VM's lease runs out, as its workflow decided (it began, or was extended). */
  @Query(
      "UPDATE vms SET lease_expires_at = :leaseExpiresAt, version = version + 1 WHERE name = :name"
          + OF_SUBMISSION)
  int recordLease(String name, long submission, Instant leaseExpiresAt);

  /**
   * Since when the VM pending longest has waited: since it was pending again ({@link #requeue}), or
   * else since its submission; empty when none is pending.
   */
  @Query("SELECT MIN(COALESCE(pending_since, created_at)) FROM vms WHERE status = 'pending'")
  java.util.Optional<Instant> oldestPendingSince();

  /**
   * A move begins: the next generation is the VM's task, to be placed elsewhere, while the running
   * one stays on {@code from} until it has started; only if the VM is still at {@code generation},
   * running there, and not already moving.
   */
  @Query(START_MOVE)
  int startMove(String name, long seq, int generation, String from, String message);

  /**
   * The term tells the VM's workflow that its worker's drain deadline passed: once per generation,
   * and only while that generation is placed there.
   */
  @Query(
      """
      UPDATE vms SET evicted_generation = :generation
      WHERE name = :name AND seq = :seq AND restart_count = :generation AND status NOT IN ('pending', 'stopping', 'stopped', 'failed', 'suspended')
        AND (evicted_generation IS NULL OR evicted_generation <> :generation)""")
  int evicted(String name, long seq, int generation);

  /**
   * The move's new copy is running: the old one is no longer kept, and is stopped; the VM reads as
   * moving until the term sees that copy gone ({@link #moveEnded}).
   */
  String MOVED =
      """
      UPDATE vms SET old_copy_on = moving_from, moving_from = NULL, disk_from = NULL
      WHERE name = :name AND restart_count = :generation AND moving_from IS NOT NULL""";

  @Query(MOVED)
  int moved(String name, int generation);

  /**
   * A live move's new copy ended, or was lost, before the VM arrived: the VM runs on at its old
   * copy, at the generation before, with its disk where it was, and avoids {@code worker} until
   * {@code until}. Only while it runs and moves live at that generation (a VM being stopped has
   * both copies removed, and its workflow records the stop at the generation it knows); 1 when it
   * did.
   */
  @Query(
      """
      UPDATE vms SET restart_count = :generation - 1, worker = moving_from, moving_from = NULL,
        disk_on = disk_from, disk_from = NULL, status_message = :message, avoid_worker = :worker,
        avoid_until = :until, version = version + 1
      WHERE name = :name AND seq = :seq AND restart_count = :generation AND status = 'running'
        AND moving_from IS NOT NULL AND migration = 'live' AND disk_from = moving_from AND disk_on = :worker""")
  int moveFailed(
      String name, long seq, int generation, String worker, String message, Instant until);

  /** The old copy a move left on {@code worker} is gone: the move is over. */
  @Query(
      "UPDATE vms SET old_copy_on = NULL, version = version + 1 WHERE name = :name AND old_copy_on = :worker")
  int moveEnded(String name, String worker);

  /** Whether any VM waits to be placed: 1 when one does, else 0 (one row of the index read). */
  @Query("SELECT COUNT(*) FROM (SELECT 1 FROM vms WHERE status = 'pending' LIMIT 1) AS waiting")
  long anyPending();

  @Query("SELECT status AS label, COUNT(*) AS total FROM vms GROUP BY status")
  List<Count> countByStatus();
}
