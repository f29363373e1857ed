package dev.rota.workflows;

import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * Options for activities that read and write the store: an explicit deadline, and retries with
 * exponential back-off up to a cap, forever (the store coming back is what they wait for).
 */
public final class ActivityDefaults {
  private ActivityDefaults() {}

  /**
   * How long a host may go silent inside a heartbeating activity before Temporal gives the activity
   * to another host: what a host that died mid-term costs the cluster.
   */
  public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(5);

  /** As {@link #store}, for activities that heartbeat while they run (the term). */
  public static ActivityOptions heartbeating(Duration maxBackoff) {
    return ActivityOptions.newBuilder(store(maxBackoff))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .build();
  }

  /**
   * As {@link #store}, run in the workflow's own task: no round trip through the task queue and no
   * activity events, for short writes that the workflow waits on often (the VM's read model).
   */
  public static LocalActivityOptions storeLocal(Duration maxBackoff) {
    return LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        // The SDK takes a local activity's policy without a maximum of attempts (and without a
        // schedule-to-close timeout) for no policy, and fails the workflow on its first failure:
        // found with PostgreSQL stopped under load. A maximum no run reaches is "forever" it
        // honours.
        .setRetryOptions(
            RetryOptions.newBuilder(forever(maxBackoff))
                .setMaximumAttempts(Integer.MAX_VALUE)
                .build())
        .build();
  }

  public static ActivityOptions store(Duration maxBackoff) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(forever(maxBackoff))
        .build();
  }

  /**
   * From 1 s, doubling up to {@code maxBackoff}, without end: the store coming back is what they
   * wait for.
   */
  private static RetryOptions forever(Duration maxBackoff) {
    return RetryOptions.newBuilder()
        .setInitialInterval(Duration.ofSeconds(1))
        .setBackoffCoefficient(2)
        .setMaximumInterval(maxBackoff)
        .build();
  }
}
