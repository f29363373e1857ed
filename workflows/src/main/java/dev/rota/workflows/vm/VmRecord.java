package dev.rota.workflows.vm;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import java.time.Duration;

/**
 * A VM as its workflow (re)starts from: the stored status, so that a workflow lost with the
 * embedded server's state resumes where the VM was, and the restart settings of the host.
 *
 * @param startedAtMillis when its current task was seen running, 0 if not
 * @param finishedAtMillis when its last task ended, 0 if not
 * @param taskEventId the last task event its workflow applied (0: none)
 * @param movingFrom the worker its previous task still runs on while a move's new copy starts, or
 *     null
 * @param maxRestarts restarts after failures allowed within {@code restartWindowMillis}; null: no
 *     limit
 * @param ttlSecondsAfterFinished how long after it finished the VM is deleted; null: kept
 * @param scheduledAtMillis when its current task was placed, 0 if not
 * @param restartAtMillis when the restart of a VM that ended is due, 0 if none is
 * @param readiness whether it has a readiness check, and what the check last said as the store
 *     holds it
 * @param maxRunSeconds how long it may run (its lease); null for no limit
 * @param onExpiry what becomes of it when its lease runs out
 * @param leaseEndsAtMillis when its lease under way runs out, 0 if none is
 * @param persistentDisk whether its root disk stays on its worker, and so does it
 * @param suspendRefusal why it cannot be suspended ({@link dev.rota.core.lifecycle.SuspendRule});
 *     null when it can
 * @param pauseRefusal why it cannot be paused in place; null when it can
 * @param taskName the name its tasks carry on the agents when it is not its own (a VM claimed from
 *     a pool carries the replica's); null: its own
 */
public record VmRecord(
    String status,
    String worker,
    int restartCount,
    String restartPolicy,
    long startedAtMillis,
    long finishedAtMillis,
    long restartDelayMillis,
    long maxRestartDelayMillis,
    long taskEventId,
    String movingFrom,
    Integer maxRestarts,
    long restartWindowMillis,
    Integer ttlSecondsAfterFinished,
    long scheduledAtMillis,
    long restartAtMillis,
    dev.rota.core.lifecycle.HeardReadiness readiness,
    Integer maxRunSeconds,
    String onExpiry,
    long leaseEndsAtMillis,
    boolean persistentDisk,
    String suspendRefusal,
    String pauseRefusal,
    String taskName) {

  /**
   * Where the VM's life stands by the store, for a run begun by a user's action, a delete, or a
   * restore after Temporal lost the last one: only a restart the last run had scheduled is still
   * due.
   */
  dev.rota.core.lifecycle.VmLife life() {
    VmStatus vmStatus = WireName.parse(VmStatus.class, status).orElse(VmStatus.PENDING);
    if (vmStatus == VmStatus.SUSPENDING) {
      // A suspend the last run did not see through: its task's events say how it ended.
      vmStatus = VmStatus.RUNNING;
    }
    return new dev.rota.core.lifecycle.VmLife(
        vmStatus,
        worker,
        restartCount,
        null,
        null,
        taskEventId,
        scheduledAtMillis,
        startedAtMillis,
        finishedAtMillis,
        vmStatus == VmStatus.RUNNING ? movingFrom : null,
        null,
        vmStatus == VmStatus.FAILED ? restartAtMillis : 0);
  }

  /** Its lease, as far as it has gone. */
  dev.rota.core.lifecycle.Lease lease() {
    return dev.rota.core.lifecycle.Lease.of(maxRunSeconds, onExpiry, leaseEndsAtMillis);
  }

  /** Its restart policy, with the host's delays. */
  dev.rota.core.lifecycle.RestartRule.Settings restartSettings() {
    return new dev.rota.core.lifecycle.RestartRule.Settings(
        WireName.parse(RestartPolicy.class, restartPolicy).orElse(RestartPolicy.NEVER),
        Duration.ofMillis(restartDelayMillis),
        Duration.ofMillis(maxRestartDelayMillis),
        maxRestarts,
        Duration.ofMillis(restartWindowMillis));
  }
}
