package dev.rota.store;

import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;

/**
 * How a set rolls out a new template: replicas it may make beyond those it wants meanwhile ({@code
 * maxSurge}), how long a new replica runs, ready, before it counts as available, how long the
 * rollout may go without a new replica becoming available before it is stalled, and whether a
 * stalled rollout goes back by itself to the version that last rolled out whole. With {@code
 * canary} above 0 a rollout makes that many new replicas first and waits until it is promoted: by a
 * user, or by itself once they are available ({@code autoPromote}).
 */
@Embeddable
public record SetUpdate(
    @MappedProperty("max_surge") int maxSurge,
    @MappedProperty("min_healthy_seconds") int minHealthySeconds,
    @MappedProperty("progress_deadline_seconds") int progressDeadlineSeconds,
    @MappedProperty("auto_revert") boolean autoRevert,
    @MappedProperty("canary") int canary,
    @MappedProperty("auto_promote") boolean autoPromote) {

  /** Ten minutes to progress, as a Kubernetes Deployment's. */
  public static final int PROGRESS_DEADLINE_SECONDS = 600;

  public static final SetUpdate DEFAULT =
      new SetUpdate(0, 0, PROGRESS_DEADLINE_SECONDS, false, 0, false);
}
