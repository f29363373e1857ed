package dev.rota.scheduler.settings;

import dev.rota.core.scheduling.HealthSettings;
import dev.rota.core.scheduling.HeartbeatPacing;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.workers.*}: the deadlines of worker health (docs/configuration.md).
 *
 * @param flakyAfterErrors failed probes in a row that make a ready worker flaky
 * @param probeBackoffCap the longest wait between probes of a worker that is not ready
 * @param flakyAfterTaskFailures tasks failing on a worker within {@code taskFailureWindow} that
 *     make it flaky; 0: never
 * @param removeOfflineAfter offline this much longer, a worker is removed; 0s: never
 * @param probeInterval how often a ready worker's whole task list is checked; 0s: every term
 * @param disruptionThreshold with more than this percentage of the workers silent at once, failover
 *     is held back (taken for the controller's fault); 100: never
 * @param maxHeartbeatsPerSecond the heartbeats a second the whole fleet is paced to, within a third
 *     of {@code lostAfter} ({@link HeartbeatPacing})
 */
@ConfigurationProperties("rota.workers")
public record WorkerSettings(
    @Bindable(defaultValue = "30s") Duration lostAfter,
    @Bindable(defaultValue = "3m") Duration offlineAfter,
    @Bindable(defaultValue = "5m") Duration flakyCooldown,
    @Bindable(defaultValue = "3") int flakyAfterErrors,
    @Bindable(defaultValue = "1m") Duration probeBackoffCap,
    @Bindable(defaultValue = "5") int flakyAfterTaskFailures,
    @Bindable(defaultValue = "10m") Duration taskFailureWindow,
    @Bindable(defaultValue = "24h") Duration removeOfflineAfter,
    @Bindable(defaultValue = "10s") Duration probeInterval,
    @Bindable(defaultValue = "55") int disruptionThreshold,
    @Bindable(defaultValue = "50") int maxHeartbeatsPerSecond) {

  /**
   * How long an agent that no controller host hears from runs its tasks before it stops them: the
   * offline deadline. Its worker's VMs are placed elsewhere only once it has been silent for
   * lost-after and offline-after, so the old copies have stopped for lost-after (at least one of
   * the agent's stop graces) by the time a new copy can start.
   */
  public Duration fenceAfter() {
    return offlineAfter;
  }

  public HeartbeatPacing heartbeatPacing() {
    return new HeartbeatPacing(maxHeartbeatsPerSecond, lostAfter);
  }

  public HealthSettings health() {
    return new HealthSettings(
        lostAfter,
        offlineAfter,
        flakyCooldown,
        flakyAfterErrors,
        probeBackoffCap,
        flakyAfterTaskFailures,
        taskFailureWindow,
        removeOfflineAfter,
        probeInterval,
        disruptionThreshold);
  }
}
