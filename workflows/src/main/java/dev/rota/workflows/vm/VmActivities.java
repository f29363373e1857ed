package dev.rota.workflows.vm;

import io.temporal.activity.ActivityInterface;

/** The VM workflow's I/O: the read model, the events log, and removing its task from its worker. */
@ActivityInterface
public interface VmActivities {
  /** The VM's stored state, or null if its row is gone. */
  VmRecord load(String vmName);

  /** Records a new status in the read model and appends an event of the given type. */
  void recordStatus(String vmName, String status, String message, String eventType);

  /**
   * Records what a task event made of the VM: status, worker, message, exit code and times, for the
   * generation it names (a record about an earlier generation changes nothing).
   */
  void recordLifecycle(VmLifecycle lifecycle);

  /** Appends an event without changing the status. */
  void recordEvent(String vmName, String eventType, String message);

  /**
   * Makes the VM pending again as generation {@code restartCount} (a new task id), records why, and
   * wakes the scheduler.
   */
  void requeue(String vmName, int restartCount, String message, String eventType);

  /** Ends and removes the task from its worker; a worker or task already gone is fine. */
  void removeTask(String worker, String taskId);

  /** Deletes the VM's rows and events. Idempotent. */
  void deleteVm(String vmName);
}
