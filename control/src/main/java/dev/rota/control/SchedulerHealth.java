package dev.rota.control;

import dev.rota.scheduler.settings.SchedulerSettings;
import io.micronaut.core.annotation.Nullable;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether the scheduler is doing its work, as {@code /health} and {@code GET /v1/cluster} tell it:
 * a scheduler that has run no term for longer than the longest a working one waits (its idle
 * interval, and a few intervals more) is degraded, missing or stuck alike, and the message says
 * since when.
 */
public record SchedulerHealth(boolean degraded, String message) {
  /**
   * @param lastTermAt when the last term began, as stored; null before the first
   * @param since when this host began serving: a scheduler gets its first term's time
   * @param restartedAt when this host last started the scheduler's workflow again, or null
   * @param restartedWhy why it did, or null
   */
  public static SchedulerHealth judge(
      @Nullable Instant lastTermAt,
      Instant since,
      @Nullable Instant restartedAt,
      @Nullable String restartedWhy,
      SchedulerSettings settings,
      Instant now) {
    Duration due = due(settings);
    String restart = restartedAt == null ? "" : "; at " + restartedAt + " " + restartedWhy;
    if (lastTermAt == null) {
      Duration waited = Duration.between(since, now);
      return waited.compareTo(due) > 0
          ? new SchedulerHealth(
              true, "no term yet, " + waited.toSeconds() + " s after this host started" + restart)
          : new SchedulerHealth(false, "waiting for the first term" + restart);
    }
    Duration quiet = Duration.between(lastTermAt, now);
    if (quiet.compareTo(due) > 0) {
      return new SchedulerHealth(
          true,
          "no term for "
              + quiet.toSeconds()
              + " s, when one comes at least every "
              + settings.idleInterval().toSeconds()
              + " s"
              + restart);
    }
    return new SchedulerHealth(
        false, "last term " + Math.max(0, quiet.toSeconds()) + " s ago" + restart);
  }

  /** The longest a working scheduler goes without a term, with room for a slow one. */
  static Duration due(SchedulerSettings settings) {
    return settings.idleInterval().plus(settings.interval().multipliedBy(3));
  }

  public String state() {
    return degraded ? "degraded" : "ok";
  }
}
