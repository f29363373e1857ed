package dev.rota.core.lifecycle;

import dev.rota.core.model.VmStatus;

/**
 * When a VM's workflow has an open run. A run ends with its VM when the VM stops; a user's next
 * action (start, restart, delete) begins the next run under the same workflow id. A VM failed for
 * good keeps its run open, showing {@code failed}, until a user starts or deletes it, so that the
 * Temporal UI's running VM workflows are the VMs that run, wait, or are failing now. (Runs from
 * before that rule ended with a failed VM too.)
 */
public final class RunRule {
  private RunRule() {}

  /** Stopped, or failed with no restart due: finished, as far as the VM's own life goes. */
  public static boolean endedForGood(VmStatus status, boolean restartDue) {
    return (status == VmStatus.STOPPED || status == VmStatus.FAILED) && !restartDue;
  }

  /** Whether the VM's workflow should have an open run: unless the VM is stopped. */
  public static boolean hasOpenRun(VmStatus status) {
    return status != VmStatus.STOPPED;
  }
}
