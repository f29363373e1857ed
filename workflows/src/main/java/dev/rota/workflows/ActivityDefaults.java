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
