package dev.rota.workflows;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * Options for activities that read and write the store: an explicit deadline, and retries with
 * exponential back-off up to a cap, forever (the store coming back is what they wait for).
 */
public final class ActivityDefaults {
  private ActivityDefaults() {}

  /**
   * How long a host may go silent inside a heartbeating activity before Temporal gives the activity to
   * another host: what a host that died mid-term costs the cluster.
   */
  public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(5);

  /** As {@link #store}, for activities that heartbeat while they run (the term). */
  public static ActivityOptions heartbeating(Duration maxBackoff) {
    return ActivityOptions.newBuilder(store(maxBackoff)).setHeartbeatTimeout(HEARTBEAT_TIMEOUT).build();
  }

  public static ActivityOptions store(Duration maxBackoff) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setInitialInterval(Duration.ofSeconds(1))
                .setBackoffCoefficient(2)
                .setMaximumInterval(maxBackoff)
                .build())
        .build();
  }
}
