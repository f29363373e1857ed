package dev.rota.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.scheduler.*}.
 *
 * @param interval the longest wait between two terms; new work wakes the scheduler sooner
 * @param idleInterval the longest wait once terms stop changing anything: the wait doubles from
 *     {@code interval} up to this; a wake-up or a health deadline still comes first
 */
@ConfigurationProperties("rota.scheduler")
public record SchedulerSettings(
    @Bindable(defaultValue = "5s") Duration interval, @Bindable(defaultValue = "30s") Duration idleInterval) {
  public SchedulerSettings {
    Settings.requirePositive("rota.scheduler.interval", interval);
    Settings.requirePositive("rota.scheduler.idle-interval", idleInterval);
  }
}
