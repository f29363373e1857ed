package dev.rota.core.model;

/**
 * A task's state as the scheduler last observed it. Only the scheduler's observation writes it (a
 * term, or an agent's report between terms); a VM's lifecycle is its workflow's, decided from
 * these.
 */
public enum TaskState implements WireName {
  /** Placed on a worker; its start is under way. */
  SCHEDULED("scheduled"),
  RUNNING("running"),
  /** Ended by itself, with an exit code. */
  EXITED("exited"),
  /** The agent could not run it, or refused it. */
  FAILED("failed"),
  /** Gone from an agent that answered, without saying how it ended. */
  VANISHED("vanished"),
  /** Its worker went offline (or was removed) with it. */
  LOST("lost");

  private final String wireName;

  TaskState(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  /** Whether the task may be running, and so holds its worker's resources. */
  public boolean live() {
    return this == SCHEDULED || this == RUNNING;
  }
}
