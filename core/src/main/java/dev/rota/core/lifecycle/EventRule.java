package dev.rota.core.lifecycle;

import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.VmStatus;

/**
 * Which of the scheduler's task events a VM's workflow applies. Events come at least once and may
 * overtake one another; each is applied at most once, in the order of its id.
 */
public final class EventRule {
  private EventRule() {}

  /**
   * Whether an event about task generation {@code generation} applies to a VM at {@code
   * restartCount} in {@code status} that last applied event {@code lastApplied}:
   *
   * <ul>
   *   <li>only about its current task, or, for a move or a failover, the next one the term placed;
   *   <li>not once the user stopped it (the stop removes the task; what the task did meanwhile does
   *       not matter);
   *   <li>only if newer than the last one applied: a repeat, or an event a later one overtook,
   *       changes nothing;
   *   <li>never readiness news, which changes no status ({@link HeardReadiness} keeps it), and
   *       whose ids do not count as applied: news that overtook an end would hide the end.
   * </ul>
   */
  public static boolean applies(
      TaskEventType type,
      int generation,
      int restartCount,
      VmStatus status,
      long eventId,
      long lastApplied) {
    if (type == null || type.tellsReadiness() || eventId <= lastApplied) {
      return false;
    }
    if (status == VmStatus.STOPPING
        || status == VmStatus.STOPPED
        || status == VmStatus.SUSPENDING
        || status == VmStatus.SUSPENDED) {
      return false;
    }
    return generation == restartCount || (ofNextGeneration(type) && generation == restartCount + 1);
  }

  /** The events that bring the VM's next generation: the term placed it elsewhere. */
  public static boolean ofNextGeneration(TaskEventType type) {
    return type == TaskEventType.MOVED || type == TaskEventType.FAILED_OVER;
  }

  /** What the workflow does after applying an event, besides showing the VM as it now is. */
  public enum Then {
    /** Nothing more. */
    NOTHING,
    /** The task ended: record it, then follow the restart policy ({@link RestartRule#afterEnd}). */
    ENDED,
    /**
     * Its worker's drain deadline passed with the task there: record the event, then start it again
     * elsewhere (a restart policy) or stop it.
     */
    DRAINED,
    /**
     * A VM of higher priority needs its room: record the event, then start it again once there is
     * room (a restart policy) or stop it.
     */
    PREEMPTED
  }

  /** The VM after an event, and what follows. */
  public record Heard(VmLife life, Then then) {}

  /**
   * What an event that {@link #applies} makes of the VM:
   *
   * <ul>
   *   <li>a failover schedules the next generation on the new worker at once, with no restart delay
   *       and no failure counted (its worker failed, not it);
   *   <li>a move of a running VM keeps it running on its old copy until the new one has started; a
   *       VM whose task ended meanwhile, or that a restart took to this generation already, just
   *       has its task placed;
   *   <li>while it moves, the new copy's placing (or its giving back) changes only where the new
   *       copy is;
   *   <li>a live move that failed takes it back to its old copy, which never stopped running: the
   *       generation before, on the worker it was moving from;
   *   <li>any other event is about its one task: the status follows {@link StatusRule}, and an end
   *       records the exit code and times of the task.
   * </ul>
   */
  public static Heard apply(VmLife life, TaskHeard e) {
    VmStatus status = life.status();
    String worker = life.worker();
    int restartCount = life.restartCount();
    Integer exitCode = life.exitCode();
    long scheduledAt = life.scheduledAtMillis();
    long startedAt = life.startedAtMillis();
    long finishedAt = life.finishedAtMillis();
    String movingFrom = life.movingFrom();
    String movingTo = life.movingTo();
    long restartAt = life.restartAtMillis();
    Then then = Then.NOTHING;
    TaskEventType type = e.type();
    boolean keepsOldCopy =
        type == TaskEventType.MOVED
            && e.generation() == restartCount + 1
            && status == VmStatus.RUNNING;
    if (keepsOldCopy) {
      movingFrom = worker;
      movingTo = e.worker();
      restartCount = e.generation();
    } else if (ofNextGeneration(type)) {
      // Scheduled on the worker the event placed it on: no restart due, not moving.
      restartAt = 0;
      movingFrom = null;
      movingTo = null;
      worker = e.worker();
      status = VmStatus.SCHEDULED;
      scheduledAt = e.atMillis();
      exitCode = null;
      restartCount = e.generation();
      if (type == TaskEventType.FAILED_OVER) {
        startedAt = 0;
      }
    } else if (type == TaskEventType.MOVE_FAILED) {
      if (movingFrom != null) {
        worker = movingFrom;
        restartCount = e.generation() - 1;
        status = VmStatus.RUNNING;
        movingFrom = null;
        movingTo = null;
      }
    } else if (type == TaskEventType.DRAINED) {
      then = Then.DRAINED;
    } else if (type == TaskEventType.PREEMPTED) {
      then = Then.PREEMPTED;
    } else if (movingFrom != null
        && (type == TaskEventType.PLACED || type == TaskEventType.GIVEN_BACK)) {
      movingTo = type == TaskEventType.PLACED ? e.worker() : null;
    } else {
      // The new copy started, or ended: either way the old one is not kept any more.
      movingFrom = null;
      movingTo = null;
      worker = type == TaskEventType.GIVEN_BACK ? null : e.worker();
      status = StatusRule.after(type, e.exitCode());
      switch (type) {
        case PLACED -> {
          scheduledAt = e.atMillis();
          exitCode = null;
        }
        case STARTED -> startedAt = e.atMillis();
        case GIVEN_BACK -> scheduledAt = 0;
        default -> {
          exitCode = e.exitCode();
          finishedAt = e.atMillis();
          startedAt = e.startedAtMillis(); // of this task: 0 if it never ran
          then = Then.ENDED;
        }
      }
    }
    return new Heard(
        new VmLife(
            status,
            worker,
            restartCount,
            e.message(),
            exitCode,
            e.id(),
            scheduledAt,
            startedAt,
            finishedAt,
            movingFrom,
            movingTo,
            restartAt),
        then);
  }
}
