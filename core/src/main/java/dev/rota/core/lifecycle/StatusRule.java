package dev.rota.core.lifecycle;

import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.VmStatus;

/**
 * What a task event makes of its VM's status, the exit-code rule among them. The VM's workflow
 * applies it.
 */
public final class StatusRule {
  private StatusRule() {}

  public static VmStatus after(TaskEventType event, Integer exitCode) {
    return switch (event) {
      case PLACED -> VmStatus.SCHEDULED;
      case STARTED -> VmStatus.RUNNING;
      case GIVEN_BACK -> VmStatus.PENDING; // to be placed again, elsewhere
      case MOVED -> VmStatus.RUNNING; // on its old copy, until the new one has started
      case MOVE_FAILED -> VmStatus.RUNNING; // on its old copy, which it never left
      case EXITED -> Integer.valueOf(0).equals(exitCode) ? VmStatus.STOPPED : VmStatus.FAILED;
      case FAILED, VANISHED, WORKER_OFFLINE -> VmStatus.FAILED;
      case DRAINED -> VmStatus.STOPPED; // unless a restart policy starts it again elsewhere
      case PREEMPTED -> VmStatus.STOPPED; // unless a restart policy starts it again
      case FAILED_OVER -> VmStatus.SCHEDULED; // its next generation, on another worker
      case READY, NOT_READY ->
          throw new IllegalArgumentException(
              "readiness news changes no status (EventRule applies none)");
    };
  }
}
