package dev.rota.core.lifecycle;

import dev.rota.core.model.RestartPolicy;
import java.time.Duration;

/** When a VM whose task ended runs again, and after how long. Pure: the workflow calls it. */
public final class RestartPolicies {
  /** A task that ran this long before failing starts the delays from the beginning. */
  public static final Duration RESET_AFTER = Duration.ofMinutes(10);

  private RestartPolicies() {}

  /**
   * Whether a task that ended this way is restarted: OnFailure after a failure, Always after any
   * end.
   */
  public static boolean restarts(RestartPolicy policy, boolean failed) {
    return switch (policy) {
      case NEVER -> false;
      case ON_FAILURE -> failed;
      case ALWAYS -> true;
    };
  }

  /** The delay before restart number {@code consecutive} (1 for the first): doubling, capped. */
  public static Duration delay(int consecutive, Duration base, Duration max) {
    Duration d = base;
    for (int i = 1; i < consecutive && d.compareTo(max) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(max) > 0 ? max : d;
  }

  /** Consecutive failures counting this one: back to 1 when the task had run long enough. */
  public static int consecutive(int before, long startedAtMillis, long endedAtMillis) {
    boolean ranLong =
        startedAtMillis > 0 && endedAtMillis - startedAtMillis >= RESET_AFTER.toMillis();
    return ranLong ? 1 : before + 1;
  }

  /**
   * Whether a VM allowed {@code maxRestarts} restarts after failures within {@code window} (Nomad's
   * reschedule {@code attempts} and {@code interval}) has used them up at {@code now}, given when
   * it restarted after failures before; null {@code maxRestarts}: never.
   */
  public static boolean exhausted(
      Integer maxRestarts, Duration window, java.util.List<Long> restartedAtMillis, long now) {
    if (maxRestarts == null) {
      return false;
    }
    long since = now - window.toMillis();
    return restartedAtMillis.stream().filter(t -> t > since).count() >= maxRestarts;
  }
}
