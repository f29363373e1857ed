package dev.rota.scheduling;

import java.time.Duration;

/**
 * The deadlines of worker health ({@code rota.workers.*}).
 *
 * @param lostAfter no heartbeat this long makes a worker lost
 * @param offlineAfter lost this much longer makes it offline
 * @param flakyCooldown how long a worker whose agent errs stays flaky before it is probed again
 * @param flakyAfterErrors consecutive failed probes of a ready worker that make it flaky
 * @param probeBackoffCap the longest wait between probes of a worker that is not ready
 */
public record HealthSettings(
    Duration lostAfter, Duration offlineAfter, Duration flakyCooldown, int flakyAfterErrors, Duration probeBackoffCap) {

  public static HealthSettings defaults() {
    return new HealthSettings(
        Duration.ofSeconds(30), Duration.ofMinutes(3), Duration.ofMinutes(5), 3, Duration.ofMinutes(1));
  }
}
