package dev.rota.core.lifecycle;

import dev.rota.core.model.VmStatus;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which of a user's actions a VM takes in each status. A refused action changes nothing; the VM's
 * workflow answers it at once with the VM's status as the reason.
 */
public final class ActionRule {
  private ActionRule() {}

  /**
   * Stopping a VM that is stopped, or on its way there, would do nothing. A suspended VM's stop
   * drops its saved memory.
   */
  private static final Set<VmStatus> STOPPABLE =
      EnumSet.complementOf(EnumSet.of(VmStatus.STOPPED, VmStatus.STOPPING));

  /**
   * Only a VM that ended, is suspended or is paused can start; one on its way to run is already
   * starting.
   */
  private static final Set<VmStatus> STARTABLE =
      EnumSet.of(VmStatus.STOPPED, VmStatus.FAILED, VmStatus.SUSPENDED, VmStatus.PAUSED);

  /**
   * A restart replaces a task that is placed, running or failed; a pending VM has none yet, and a
   * stopped one is started instead.
   */
  private static final Set<VmStatus> RESTARTABLE =
      EnumSet.of(VmStatus.SCHEDULED, VmStatus.RUNNING, VmStatus.FAILED, VmStatus.PAUSED);

  /** Whether {@code action} is taken in {@code status}; nothing is taken once a delete is asked. */
  public static boolean allows(UserAction action, VmStatus status, boolean deleting) {
    if (deleting) {
      return false;
    }
    return switch (action) {
      case STOP -> STOPPABLE.contains(status);
      case START -> STARTABLE.contains(status);
      case RESTART -> RESTARTABLE.contains(status);
      case SUSPEND, PAUSE -> status == VmStatus.RUNNING;
    };
  }
}
