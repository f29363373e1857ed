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
 * @param wokenTermGap the least time from a term's end to the start of a term a wake-up brought:
 *     under a stream of submissions each term places what came meanwhile, instead of a term each
 */
@ConfigurationProperties("rota.scheduler")
public record SchedulerSettings(
    @Bindable(defaultValue = "5s") Duration interval,
    @Bindable(defaultValue = "30s") Duration idleInterval,
    @Bindable(defaultValue = "1000") int rebalanceMovesPerTerm,
    @Bindable(defaultValue = "250ms") Duration wokenTermGap) {
  static final String REBALANCE_EXPECTATION = "must be 0 or more moves (0 turns rebalancing off)";
  static final String GAP_EXPECTATION =
      "must be a duration under 10s such as 250ms (0s: a woken term begins at once)";

  static boolean gapAllowed(Duration gap) {
    return !gap.isNegative() && gap.compareTo(Duration.ofSeconds(10)) < 0;
  }

  public SchedulerSettings {
    Settings.requirePositive("rota.scheduler.interval", interval);
    Settings.requirePositive("rota.scheduler.idle-interval", idleInterval);
    if (rebalanceMovesPerTerm < 0) {
      throw new InvalidSettingException(
          "rota.scheduler.rebalance-moves-per-term",
          String.valueOf(rebalanceMovesPerTerm),
          REBALANCE_EXPECTATION);
    }
    if (!gapAllowed(wokenTermGap)) {
      throw new InvalidSettingException(
          "rota.scheduler.woken-term-gap", String.valueOf(wokenTermGap), GAP_EXPECTATION);
    }
  }
}
