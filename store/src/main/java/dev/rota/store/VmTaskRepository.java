package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The scheduler's record of the tasks it placed. Every state change is conditional on the state it
 * changes from, so the term and an agent's report racing over one task change it once.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmTaskRepository extends GenericRepository<VmTaskRow, String> {
  /** {@link #ended}'s statement, for a term's failovers as one batch. */
  String ENDED =
      """
      UPDATE vm_tasks SET state = :state, exit_code = :exitCode, message = :message, ended_at = :at
      WHERE id = :id AND state IN ('scheduled', 'running')""";

  /** {@link #place}'s statement, which a term's placements run as one batch. */
  String PLACE =
      """
      INSERT INTO vm_tasks (id, vm, vm_seq, generation, worker, state, placed_at)
      SELECT :id, :vm, :vmSeq, :generation, :worker, 'scheduled', :at FROM vms
      WHERE name = :vm AND seq = :vmSeq AND restart_count = :generation AND status NOT IN ('stopping', 'stopped', 'failed', 'suspending', 'suspended')
        AND NOT EXISTS (SELECT 1 FROM vm_tasks WHERE id = :id)""";

  List<VmTaskRow> findAll();

  /** The tasks placed for one submission of a VM. */
  List<VmTaskRow> findByVmAndVmSeq(String vm, long vmSeq);

  /** A claimed pool replica's tasks, now its new name's; their ids, the agents', stay. */
  @Query("UPDATE vm_tasks SET vm = :to WHERE vm = :from AND vm_seq = :vmSeq")
  int rename(String from, long vmSeq, String to);

  Optional<VmTaskRow> findById(String id);

  List<VmTaskRow> findByIdInList(java.util.Collection<String> ids);

  /**
   * Places generation {@code generation} of the VM's submission {@code vmSeq} on {@code worker}, if
   * it has no task yet and its workflow still wants it (a stop or restart that won the race wins).
   * The statuses are named by those left out: with {@code status IN (…)} H2 looked the VM up by its
   * (status, seq) index, walking every pending VM for each placement, not by its name.
   */
  @Query(PLACE)
  int place(String id, String vm, long vmSeq, int generation, String worker, Instant at);

  String STARTED =
      "UPDATE vm_tasks SET state = 'running', started_at = :at, message = :message WHERE id = :id AND state = 'scheduled'";

  @Query(STARTED)
  int started(String id, Instant at, String message);

  /** The task ended, failed, vanished or was lost: once, from a live state. */
  @Query(ENDED)
  int ended(String id, String state, @Nullable Integer exitCode, String message, Instant at);

  /** The worker could not start it: the record goes, so that the VM is placed again. */
  @Query("DELETE FROM vm_tasks WHERE id = :id AND state = 'scheduled'")
  int givenBack(String id);

  @Query("DELETE FROM vm_tasks WHERE id = :id")
  int forget(String id);
}
