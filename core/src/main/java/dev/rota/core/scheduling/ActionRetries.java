package dev.rota.core.scheduling;

/**
 * What becomes of a queued action that did not succeed: tried again at the next term, or given up
 * in the way its kind allows. A start refused by its agent (a 4xx) fails the task at once; a start
 * that keeps failing gives the placement back, so that the VM is placed elsewhere; a removal is
 * dropped eventually (the next term's reconciliation removes what is left), and so is a delivery of
 * user data once its guest kept it waiting too long (saying so in the VM's events); the news for a
 * workflow never is.
 */
public final class ActionRetries {
  /** A task start that failed this often gives its placement back. */
  public static final int START_ATTEMPTS = 5;

  /** Any other action tried this often is given up, or (news) no longer hurried. */
  public static final int MAX_ATTEMPTS = 20;

  public enum Kind {
    START,
    REMOVE,
    /** A task event for a VM's workflow. */
    NOTIFY,
    /** User data for a running guest claimed from a pool. */
    DELIVER
  }

  public enum Next {
    /** Leave it in the outbox for the next term. */
    RETRY,
    /** The agent refused the task: it failed. */
    FAIL_TASK,
    /** The worker could not start it: the VM is placed again, avoiding that worker. */
    GIVE_BACK,
    /** Give it up. */
    DROP
  }

  private ActionRetries() {}

  /**
   * How long user data waits for its guest to take it: a guest booting under software emulation may
   * start its guest agent minutes after its VM runs. Counted in time, not tries, for terms come
   * every second while actions wait and every interval after {@link #MAX_ATTEMPTS} tries.
   */
  public static final java.time.Duration DELIVERY_PATIENCE = java.time.Duration.ofMinutes(10);

  /**
   * @param refused whether the agent refused it (a 4xx: trying again cannot help)
   * @param attemptsBefore how often it had been tried before this failure
   * @param age how long ago it was decided
   */
  public static Next afterFailure(
      Kind kind, boolean refused, int attemptsBefore, java.time.Duration age) {
    int tried = attemptsBefore + 1;
    return switch (kind) {
      case START ->
          refused ? Next.FAIL_TASK : tried >= START_ATTEMPTS ? Next.GIVE_BACK : Next.RETRY;
      case REMOVE -> refused || tried >= MAX_ATTEMPTS ? Next.DROP : Next.RETRY;
      case DELIVER -> refused || age.compareTo(DELIVERY_PATIENCE) >= 0 ? Next.DROP : Next.RETRY;
      case NOTIFY ->
          Next.RETRY; // the workflow has no other way to learn it: kept while its VM exists
    };
  }
}
