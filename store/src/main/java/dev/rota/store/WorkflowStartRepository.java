package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/** The VMs stored whose workflows are still to be started: the submissions' outbox to Temporal. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface WorkflowStartRepository extends GenericRepository<WorkflowStartRow, String> {
  /** One VM's start owed, written in its submission's transaction. */
  String ADD =
      "INSERT INTO workflow_starts (vm, vm_seq, submitted_at) VALUES (:vm, :vmSeq, :submittedAt)";

  @Query(ADD)
  void add(String vm, long vmSeq, Instant submittedAt);

  /**
   * The oldest starts owed since before {@code before} that no host is making at {@code now},
   * submission order.
   */
  @Query(
      "SELECT * FROM workflow_starts WHERE submitted_at < :before"
          + " AND (claimed_until IS NULL OR claimed_until < :now) ORDER BY vm_seq LIMIT :limit")
  List<WorkflowStartRow> oldest(Instant before, Instant now, int limit);

  /**
   * Claims a start owed for host {@code by}, which makes it before {@code until}, unless another
   * host's claim holds at {@code now}; one or many, as a batch (1: claimed, or claimed again).
   */
  String CLAIM =
      "UPDATE workflow_starts SET claimed_by = :by, claimed_until = :until"
          + " WHERE vm = :vm AND vm_seq = :vmSeq"
          + " AND (claimed_until IS NULL OR claimed_until < :now OR claimed_by = :by)";

  /** Whether the VM's workflow is still to be started. */
  @Query("SELECT COUNT(*) FROM workflow_starts WHERE vm = :vm")
  long owed(String vm);

  /**
   * Takes out a start made, of the submission it was made for (a later one stays owed); one or
   * many, as a batch.
   */
  String DONE = "DELETE FROM workflow_starts WHERE vm = :vm AND vm_seq = :vmSeq";

  /** The starts owed VMs that are gone, whatever their submission. */
  @Query("DELETE FROM workflow_starts WHERE vm IN (:vms)")
  void forgetAll(java.util.Collection<String> vms);

  /** Starts owed to many VMs at once, for a batch's submissions. */
  @Query("SELECT * FROM workflow_starts WHERE vm IN (:vms)")
  List<WorkflowStartRow> findByVmIn(Collection<String> vms);

  @Query("SELECT COUNT(*) FROM workflow_starts")
  long count();
}
