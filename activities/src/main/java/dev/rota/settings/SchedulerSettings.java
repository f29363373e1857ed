package dev.rota.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.scheduler.*}.
 *
 * @param interval the longest wait between two terms; new work wakes the scheduler sooner
 */
@ConfigurationProperties("rota.scheduler")
public record SchedulerSettings(@Bindable(defaultValue = "5s") Duration interval) {
  public SchedulerSettings {
    Settings.requirePositive("rota.scheduler.interval", interval);
  }
}
