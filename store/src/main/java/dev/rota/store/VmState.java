package dev.rota.store;

import dev.rota.core.lifecycle.PoolRule;
import dev.rota.core.lifecycle.RunRule;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import java.time.Instant;

/**
 * A VM's lifecycle as its row shows it: the read model its workflow writes (status, message,
 * worker, generation, exit code, times, the last task event applied, when a restart is due, when
 * its lease runs out). The one other writer is the observation of a placed VM's start, which writes
 * what the workflow will once it hears.
 */
@Embeddable
public record VmState(
    @MappedProperty("status") String status,
    @MappedProperty("status_message") @Nullable String statusMessage,
    @MappedProperty("worker") @Nullable String worker,
    @MappedProperty("restart_count") int restartCount,
    @MappedProperty("exit_code") @Nullable Integer exitCode,
    @MappedProperty("scheduled_at") @Nullable Instant scheduledAt,
    @MappedProperty("started_at") @Nullable Instant startedAt,
    @MappedProperty("finished_at") @Nullable Instant finishedAt,
    @MappedProperty("task_event_id") long taskEventId,
    @MappedProperty("restart_at") @Nullable Instant restartAt,
    @MappedProperty("lease_expires_at") @Nullable Instant leaseExpiresAt) {

  /** A VM just submitted: pending, generation 0, no worker. */
  public static VmState pending(String message) {
    return new VmState("pending", message, null, 0, null, null, null, null, 0, null, null);
  }

  /**
   * Stopped, or failed with no restart due ({@link RunRule}): the VM's last workflow run ended with
   * it.
   */
  public boolean endedForGood() {
    return RunRule.endedForGood(vmStatus(), restartAt != null);
  }

  /** Whether a warm pool replaces this replica of its now ({@link PoolRule}). */
  public boolean replacedInAPool(Instant now) {
    return PoolRule.replaces(vmStatus(), restartAt != null, finishedAt, now);
  }

  /** Whether a claim may take this replica of a pool ({@link PoolRule#claimable}). */
  public boolean claimableInAPool(boolean awaitingReadiness, boolean keepsSuspended) {
    return PoolRule.claimable(vmStatus(), awaitingReadiness, keepsSuspended);
  }

  /** Whether its memory is saved and no task runs: a start resumes it. */
  public boolean isSuspended() {
    return vmStatus() == VmStatus.SUSPENDED;
  }

  /** Whether a pool that keeps its replicas suspended suspends this one now. */
  public boolean suspendedByItsPool(boolean awaitingReadiness) {
    return PoolRule.suspends(vmStatus(), awaitingReadiness);
  }

  /** Whether the VM's workflow should have an open run ({@link RunRule#hasOpenRun}). */
  public boolean hasOpenRun() {
    return RunRule.hasOpenRun(vmStatus());
  }

  /** Its status as the lifecycle's rules take it. */
  public VmStatus vmStatus() {
    return WireName.parse(VmStatus.class, status).orElse(VmStatus.PENDING);
  }
}
