package dev.rota.core.lifecycle;

import dev.rota.core.model.VmStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * Which of a warm pool's replicas a claim may take, and what the pool does with the others.
 *
 * <p>A pool keeps its replicas running, or suspended ({@code standby}): then a replica is booted,
 * and once it runs and is ready (its readiness check passing, where it has one) the pool suspends
 * it, its memory saved on its worker's disk; a claim takes a suspended one and resumes it.
 *
 * <p>A replica that ended before anyone claimed it: one that ended for good ({@link
 * RunRule#endedForGood}: stopped, or failed with no restart to come, as a template that restarts
 * {@code Never} leaves it) can no longer be handed out, yet would hold its place among the pool's
 * replicas: the pool deletes it and makes another. Not at once: a template whose VMs fail as they
 * start would otherwise have the pool boot one after another without a pause, so a replica is
 * replaced {@link #REPLACE_AFTER} after it ended, as long as a restart's first delay.
 */
public final class PoolRule {
  /** How long an ended replica stays before the pool replaces it. */
  public static final Duration REPLACE_AFTER = Duration.ofSeconds(15);

  private PoolRule() {}

  /**
   * Whether a claim may take a replica that is {@code status} now, {@code awaitingReadiness} or
   * not, from a pool that keeps its replicas suspended ({@code keepsSuspended}) or running.
   */
  public static boolean claimable(
      VmStatus status, boolean awaitingReadiness, boolean keepsSuspended) {
    return keepsSuspended
        ? status == VmStatus.SUSPENDED
        : status == VmStatus.RUNNING && !awaitingReadiness;
  }

  /** Whether a pool that keeps its replicas suspended suspends this one now: it runs, ready. */
  public static boolean suspends(VmStatus status, boolean awaitingReadiness) {
    return status == VmStatus.RUNNING && !awaitingReadiness;
  }

  /**
   * Whether the pool replaces a replica that is {@code status} now, with a restart of its own due
   * or not, and ended at {@code endedAt} (null: not known, so long ago).
   */
  public static boolean replaces(
      VmStatus status, boolean restartDue, Instant endedAt, Instant now) {
    return RunRule.endedForGood(status, restartDue)
        && (endedAt == null || !endedAt.plus(REPLACE_AFTER).isAfter(now));
  }
}
