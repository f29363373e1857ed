package dev.rota.workflows.vm;

import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * The VM workflow's I/O: the read model, the events log, and removing its task from its worker.
 * Each takes one record, so that a field can be added without a new method. A record's {@code
 * submission} is the submission its workflow runs for ({@link VmWorkflow#SUBMISSION}): the write
 * changes the VM only while the name still holds that submission. 0 (a run started without the
 * memo) writes to whatever VM has the name.
 */
@ActivityInterface
public interface VmActivities {
  /** The VM as an activity's argument. */
  record VmRef(String vm, long submission) {}

  /** A status its workflow decided, why, and the type of the event that says so. */
  record StatusChange(
      String vm, String status, String message, String eventType, long submission) {}

  /** A line in the VM's events. */
  /**
   * @param restartAtMillis with a {@code restart-scheduled} event, when the restart is due; else
   *     null
   */
  record VmEvent(String vm, String type, String message, Long restartAtMillis, long submission) {
    public VmEvent(String vm, String type, String message, long submission) {
      this(vm, type, message, null, submission);
    }
  }

  /** Pending again as generation {@code restartCount}, a new task id. */
  /**
   * @param failedOn the worker the ended task failed on, which the restart prefers to avoid; null
   *     for none
   */
  /**
   * @param leaseEndsAtMillis when its lease under way runs out, 0 for none (a user's start begins a
   *     new lease, which begins when it runs)
   * @param moveDisk whether its persistent disk moves with it: its next task goes to any worker and
   *     copies the disk from the one that holds it
   */
  record Requeue(
      String vm,
      int restartCount,
      String message,
      String eventType,
      String failedOn,
      long submission,
      long leaseEndsAtMillis,
      boolean moveDisk) {}

  /**
   * Its lease runs out at {@code endsAtMillis}: it began, or was extended, as {@code message} says.
   */
  record LeaseChange(
      String vm, long endsAtMillis, String eventType, String message, long submission) {}

  /** Pause the task where it runs ({@code pause}), or run it on. */
  record PauseTask(String worker, String taskId, long submission, boolean pause) {}

  /** A task on a worker, of the VM's {@code submission}. */
  record WorkerTask(String worker, String taskId, long submission) {}

  /** The VM's stored state, or null if its row is gone. */
  VmRecord load(VmRef vm);

  /** Records a new status in the read model and appends an event of the given type. */
  void recordStatus(StatusChange change);

  /** Appends an event without changing the status. */
  void recordEvent(VmEvent event);

  /** Makes the VM pending again as a new generation, records why, and wakes the scheduler. */
  void requeue(Requeue requeue);

  /** Records when its lease runs out, and why in its events. */
  void recordLease(LeaseChange change);

  /** Ends and removes the task from its worker; a worker or task already gone is fine. */
  void removeTask(WorkerTask task);

  /**
   * Saves the running task's memory on its worker, where the VM then resumes, and ends the task;
   * returns the memory's size in bytes. Refused (not retried) when the agent says it cannot be.
   */
  long suspendTask(WorkerTask task);

  /**
   * Pauses the running task's guest where it runs, its QEMU and memory kept, or runs it on. Refused
   * (not retried) when the agent says it cannot be.
   */
  void pauseTask(PauseTask pause);

  /** Deletes the VM's rows and events. Idempotent. */
  void deleteVm(VmRef vm);

  /** A VM to delete, and the tasks it may have on workers. */
  record Deletion(VmRef vm, List<WorkerTask> tasks) {}

  /**
   * Removes the VM's tasks from their workers, then deletes its rows and events, in one call; a
   * task whose agent does not answer is left to the scheduler, which removes a task no VM holds
   * once its agent answers. Idempotent.
   */
  void deleteWithTasks(Deletion deletion);
}
