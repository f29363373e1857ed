package dev.rota.core.lifecycle;

import dev.rota.core.model.RestartPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What follows a VM's task ending: a restart after a delay, nothing, or, once its restarts after
 * failures are used up, nothing with a reason. The delay doubles on each failure in a row, up to a
 * maximum, and starts again from the base once a task ran long enough ({@link
 * RestartPolicies#RESET_AFTER}).
 */
public final class RestartRule {
  private RestartRule() {}

  /**
   * A VM's restart settings: its policy, the first delay and the most it grows to, and at most
   * {@code maxRestarts} restarts after failures within {@code window} (null: no limit).
   */
  public record Settings(
      RestartPolicy policy,
      Duration delay,
      Duration maxDelay,
      Integer maxRestarts,
      Duration window) {}

  /**
   * What its restarts so far count: failures in a row, and when it restarted after failures, newest
   * last (only the newest {@code maxRestarts} can tip the count, so no more are kept).
   */
  public record Count(int failuresInARow, List<Long> restartsAfterFailure) {
    public Count {
      restartsAfterFailure = List.copyOf(restartsAfterFailure);
    }

    public static final Count NONE = new Count(0, List.of());
  }

  /** What an ended task leads to, with the count as it stands after it. */
  public sealed interface AfterEnd {
    Count count();
  }

  /** It runs again at {@code atMillis}, {@code delay} after its task ended. */
  public record Restart(Count count, long atMillis, Duration delay) implements AfterEnd {}

  /** It stays as it ended (stopped, or failed under a policy that does not restart it). */
  public record Stay(Count count) implements AfterEnd {}

  /** It stays failed: its restarts after failures within the window are used up. */
  public record GiveUp(Count count, String reason) implements AfterEnd {}

  /**
   * What follows a task that ended at {@code endedAtMillis} (0 if not known: {@code now}), having
   * started at {@code startedAtMillis} (0 if it never ran), {@code failed} or not.
   */
  public static AfterEnd afterEnd(
      Settings settings,
      Count before,
      boolean failed,
      long startedAtMillis,
      long endedAtMillis,
      long now) {
    List<Long> restarts = before.restartsAfterFailure();
    if (failed
        && settings.maxRestarts() != null
        && RestartPolicies.restarts(settings.policy(), true)) {
      if (RestartPolicies.exhausted(settings.maxRestarts(), settings.window(), restarts, now)) {
        return new GiveUp(new Count(0, restarts), exhausted(settings));
      }
      List<Long> counted = new ArrayList<>(restarts);
      counted.add(now);
      if (counted.size() > settings.maxRestarts()) {
        counted.remove(0);
      }
      restarts = counted;
    }
    if (RestartPolicies.restarts(settings.policy(), failed)) {
      int inARow =
          RestartPolicies.consecutive(before.failuresInARow(), startedAtMillis, endedAtMillis);
      Duration delay = delay(settings, inARow);
      long from = endedAtMillis > 0 ? endedAtMillis : now;
      return new Restart(new Count(inARow, restarts), from + delay.toMillis(), delay);
    }
    return new Stay(new Count(failed ? 0 : before.failuresInARow(), restarts));
  }

  /** The delay before a restart after {@code failuresInARow} failures in a row (at least one). */
  public static Duration delay(Settings settings, int failuresInARow) {
    return RestartPolicies.delay(
        Math.max(1, failuresInARow), settings.delay(), settings.maxDelay());
  }

  private static String exhausted(Settings settings) {
    int max = settings.maxRestarts();
    return "not restarted: "
        + max
        + " restart"
        + (max == 1 ? "" : "s")
        + " after failures within "
        + settings.window().toSeconds()
        + " s used up (maxRestarts)";
  }
}
