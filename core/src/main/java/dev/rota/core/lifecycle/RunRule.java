package dev.rota.core.lifecycle;

import dev.rota.core.model.VmStatus;

/**
 * When a VM's workflow has an open run. A run ends with its VM: when the VM stops, or fails with no
 * restart due; a user's next action (start, restart, delete) begins the next run under the same
 * workflow id. So the Temporal UI's list shows RUNNING only for a VM that may still run.
 */
public final class RunRule {
  private RunRule() {}

  /** Stopped, or failed with no restart due: the VM's run may end with it. */
  public static boolean endedForGood(VmStatus status, boolean restartDue) {
    return (status == VmStatus.STOPPED || status == VmStatus.FAILED) && !restartDue;
  }
}
