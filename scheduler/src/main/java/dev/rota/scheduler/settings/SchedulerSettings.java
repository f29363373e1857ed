package dev.rota.scheduler.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.scheduler.*}.
 *
 * @param interval the longest wait between two terms; new work wakes the scheduler sooner
 * @param idleInterval the longest wait once terms stop changing anything: the wait doubles from
 *     {@code interval} up to this; a wake-up or a health deadline still comes first
 * @param rebalanceMovesPerTerm the most replicas of VM sets one term moves to rebalance; 0 turns
 *     rebalancing off
 */
@ConfigurationProperties("rota.scheduler")
public record SchedulerSettings(
    @Bindable(defaultValue = "5s") Duration interval,
    @Bindable(defaultValue = "30s") Duration idleInterval,
    @Bindable(defaultValue = "1000") int rebalanceMovesPerTerm) {
  static final String REBALANCE_EXPECTATION = "must be 0 or more moves (0 turns rebalancing off)";

  public SchedulerSettings {
    Settings.requirePositive("rota.scheduler.interval", interval);
    Settings.requirePositive("rota.scheduler.idle-interval", idleInterval);
    if (rebalanceMovesPerTerm < 0) {
      throw new InvalidSettingException(
          "rota.scheduler.rebalance-moves-per-term",
          String.valueOf(rebalanceMovesPerTerm),
          REBALANCE_EXPECTATION);
    }
  }
}
