package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import java.time.Instant;

/**
 * Where a set's rollouts stand: the version that last rolled out whole ({@code stableVersion}, what
 * an auto-revert goes back to) and, while one is under way, the most of its new replicas that were
 * available at once and since when ({@code progressAt}, null with none under way); whether its
 * canaries were promoted, and whether a user paused it (a pause outlasts the rollout: the next one
 * waits too, until resumed).
 */
@Embeddable
public record SetRollout(
    @MappedProperty("stable_version") int stableVersion,
    @MappedProperty("rollout_available") int available,
    @MappedProperty("rollout_progress_at") @Nullable Instant progressAt,
    @MappedProperty("rollout_promoted") boolean promoted,
    @MappedProperty("rollout_paused") boolean paused) {

  public static final SetRollout FIRST = new SetRollout(1, 0, null, false, false);

  /** A rollout begun {@code now}: nothing of it available yet, its canaries not promoted. */
  public SetRollout begun(Instant now) {
    return new SetRollout(stableVersion, 0, now, false, paused);
  }
}
