package dev.rota.core.scheduling;

import java.time.Duration;

/**
 * The deadlines of worker health ({@code rota.workers.*}).
 *
 * @param lostAfter no heartbeat this long makes a worker lost
 * @param offlineAfter lost this much longer makes it offline
 * @param flakyCooldown how long a worker whose agent errs stays flaky before it is probed again
 * @param flakyAfterErrors consecutive failed probes of a ready worker that make it flaky
 * @param probeBackoffCap the longest wait between probes of a worker that is not ready
 * @param flakyAfterTaskFailures tasks failing on a ready worker within {@code taskFailureWindow}
 *     that make it flaky (Scoot); 0: task failures never do
 * @param taskFailureWindow how far back task failures count
 * @param removeOfflineAfter offline this much longer, a worker is removed (Nomad's node GC); zero:
 *     never
 * @param probeInterval how often a ready worker's agent is asked for its whole task list: its agent
 *     reports each change as it happens, so the probe is the check that nothing was missed, not the
 *     way changes are heard; zero: every term
 * @param disruptionThreshold with more than this percentage of the workers silent at once, none
 *     goes offline and no VM is failed over ({@link Disruption}); 100: never held
 */
public record HealthSettings(
    Duration lostAfter,
    Duration offlineAfter,
    Duration flakyCooldown,
    int flakyAfterErrors,
    Duration probeBackoffCap,
    int flakyAfterTaskFailures,
    Duration taskFailureWindow,
    Duration removeOfflineAfter,
    Duration probeInterval,
    int disruptionThreshold) {
  public static final Duration REMOVE_OFFLINE_AFTER = Duration.ofHours(24);
  public static final Duration PROBE_INTERVAL = Duration.ofSeconds(10);

  /** Kubernetes' {@code unhealthy-zone-threshold}. */
  public static final int DISRUPTION_THRESHOLD = 55;

  public HealthSettings(
      Duration lostAfter,
      Duration offlineAfter,
      Duration flakyCooldown,
      int flakyAfterErrors,
      Duration probeBackoffCap,
      int flakyAfterTaskFailures,
      Duration taskFailureWindow,
      Duration removeOfflineAfter,
      Duration probeInterval) {
    this(
        lostAfter,
        offlineAfter,
        flakyCooldown,
        flakyAfterErrors,
        probeBackoffCap,
        flakyAfterTaskFailures,
        taskFailureWindow,
        removeOfflineAfter,
        probeInterval,
        DISRUPTION_THRESHOLD);
  }

  public HealthSettings(
      Duration lostAfter,
      Duration offlineAfter,
      Duration flakyCooldown,
      int flakyAfterErrors,
      Duration probeBackoffCap,
      int flakyAfterTaskFailures,
      Duration taskFailureWindow,
      Duration removeOfflineAfter) {
    this(
        lostAfter,
        offlineAfter,
        flakyCooldown,
        flakyAfterErrors,
        probeBackoffCap,
        flakyAfterTaskFailures,
        taskFailureWindow,
        removeOfflineAfter,
        PROBE_INTERVAL);
  }

  public HealthSettings(
      Duration lostAfter,
      Duration offlineAfter,
      Duration flakyCooldown,
      int flakyAfterErrors,
      Duration probeBackoffCap,
      int flakyAfterTaskFailures,
      Duration taskFailureWindow) {
    this(
        lostAfter,
        offlineAfter,
        flakyCooldown,
        flakyAfterErrors,
        probeBackoffCap,
        flakyAfterTaskFailures,
        taskFailureWindow,
        REMOVE_OFFLINE_AFTER);
  }

  /**
   * When a worker last heard from at {@code lastSeen} is removed if it stays silent: {@code
   * removeOfflineAfter} after it went offline, counted as its health is from the scheduler's return
   * after an outage ({@code listeningSince}, or null); null: never.
   */
  public java.time.Instant removalAt(java.time.Instant lastSeen, java.time.Instant listeningSince) {
    if (removeOfflineAfter.isZero()) {
      return null;
    }
    java.time.Instant silentSince =
        listeningSince != null && listeningSince.isAfter(lastSeen) ? listeningSince : lastSeen;
    return silentSince.plus(lostAfter).plus(offlineAfter).plus(removeOfflineAfter);
  }

  public HealthSettings(
      Duration lostAfter,
      Duration offlineAfter,
      Duration flakyCooldown,
      int flakyAfterErrors,
      Duration probeBackoffCap) {
    this(
        lostAfter,
        offlineAfter,
        flakyCooldown,
        flakyAfterErrors,
        probeBackoffCap,
        5,
        Duration.ofMinutes(10));
  }

  public static HealthSettings defaults() {
    return new HealthSettings(
        Duration.ofSeconds(30),
        Duration.ofMinutes(3),
        Duration.ofMinutes(5),
        3,
        Duration.ofMinutes(1));
  }
}
