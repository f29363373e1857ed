package dev.rota.core.model;

/**
 * What the scheduler tells a VM's workflow about its task. Each is sent through the outbox in the
 * transaction that observed it, at least once; the workflow applies each at most once.
 */
public enum TaskEventType implements WireName {
  /** The term placed the task on a worker. */
  PLACED("placed"),
  STARTED("started"),
  /** Ended by itself; the exit code says how. */
  EXITED("exited"),
  /** The agent could not run it, or refused it; the message says why. */
  FAILED("failed"),
  VANISHED("vanished"),
  WORKER_OFFLINE("worker-offline"),
  /** The worker could not start it after several tries: the VM waits for another placement. */
  GIVEN_BACK("given-back"),
  /**
   * The term moved the VM: its next generation is placed on another worker while the running task
   * stays until the new one has started.
   */
  MOVED("moved"),
  /**
   * A move that carries the running VM over (a live move) failed: its new copy ended, or was lost,
   * before the VM arrived there. The VM runs on at its old copy, at the generation before, as if it
   * had never moved; the message says why.
   */
  MOVE_FAILED("move-failed"),
  /**
   * The deadline of its worker's drain passed with the task still there: the workflow stops the VM,
   * or with a restart policy starts it again elsewhere.
   */
  DRAINED("drained"),
  /**
   * A waiting VM of higher priority needs its room: the workflow starts it again once there is room
   * (it has a restart policy), not counted as a failure; the message names that VM.
   */
  PREEMPTED("preempted"),
  /**
   * Its worker went offline with the task, and the term placed the next generation elsewhere at
   * once (the VM has a restart policy): the VM is scheduled there, not failed.
   */
  FAILED_OVER("failed-over"),
  /**
   * The task's readiness check passes: since the event's time. It changes no status; the VM's
   * summary shows it.
   */
  READY("ready"),
  /** The task's readiness check no longer passes, or failed; the message says why. */
  NOT_READY("not-ready");

  private final String wireName;

  TaskEventType(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  /** The event that reports a task reaching {@code state}. */
  public static TaskEventType reaching(TaskState state) {
    return switch (state) {
      case SCHEDULED -> PLACED;
      case RUNNING -> STARTED;
      case EXITED -> EXITED;
      case FAILED -> FAILED;
      case VANISHED -> VANISHED;
      case LOST -> WORKER_OFFLINE;
    };
  }

  /** Whether it tells what the task's readiness check says, and nothing of its lifecycle. */
  public boolean tellsReadiness() {
    return this == READY || this == NOT_READY;
  }

  /** Whether it places a task on a worker, with a start for the worker's agent to carry out. */
  public boolean places() {
    return this == PLACED || this == MOVED || this == FAILED_OVER;
  }

  /**
   * Whether the task ended with it, or is ended for it (a drained or preempted VM's task is
   * removed).
   */
  public boolean ends() {
    return this == EXITED
        || this == FAILED
        || this == VANISHED
        || this == WORKER_OFFLINE
        || this == DRAINED
        || this == PREEMPTED;
  }
}
