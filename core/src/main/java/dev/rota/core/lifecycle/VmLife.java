package dev.rota.core.lifecycle;

import dev.rota.core.model.VmStatus;

/**
 * Where a VM's life stands, as its workflow keeps it: its status and worker, the generation of its
 * task ({@code restartCount}), what its last task did, the last task event applied, and while it
 * moves, the worker its old copy runs on and the one its new copy is placed on. Times are epoch
 * milliseconds, 0 for none; {@code restartAtMillis} is when a scheduled restart is due.
 */
public record VmLife(
    VmStatus status,
    String worker,
    int restartCount,
    String message,
    Integer exitCode,
    long lastTaskEventId,
    long scheduledAtMillis,
    long startedAtMillis,
    long finishedAtMillis,
    String movingFrom,
    String movingTo,
    long restartAtMillis) {

  /** A VM just submitted: pending, its first task not yet placed. */
  public static VmLife pending() {
    return new VmLife(VmStatus.PENDING, null, 0, null, null, 0, 0, 0, 0, null, null, 0);
  }

  public VmLife withStatus(VmStatus newStatus) {
    return with(newStatus, worker, restartCount, message, movingFrom, movingTo, restartAtMillis);
  }

  public VmLife withMessage(String newMessage) {
    return with(status, worker, restartCount, newMessage, movingFrom, movingTo, restartAtMillis);
  }

  /** With a restart due at {@code atMillis}, or none (0). */
  public VmLife withRestartAt(long atMillis) {
    return with(status, worker, restartCount, message, movingFrom, movingTo, atMillis);
  }

  /** Its next generation, pending for the scheduler: a new task id, no worker, not moving. */
  public VmLife requeued() {
    return with(VmStatus.PENDING, null, restartCount + 1, message, null, null, restartAtMillis);
  }

  /** The same task's record (exit code, times, last event) with where the VM stands changed. */
  private VmLife with(
      VmStatus newStatus,
      String newWorker,
      int generation,
      String newMessage,
      String from,
      String to,
      long restartAt) {
    return new VmLife(
        newStatus,
        newWorker,
        generation,
        newMessage,
        exitCode,
        lastTaskEventId,
        scheduledAtMillis,
        startedAtMillis,
        finishedAtMillis,
        from,
        to,
        restartAt);
  }

  /** Whether it is stopped, or failed with no restart coming ({@link RunRule#endedForGood}). */
  public boolean finished() {
    return RunRule.endedForGood(status, restartAtMillis > 0);
  }
}
