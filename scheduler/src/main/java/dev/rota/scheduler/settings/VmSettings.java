package dev.rota.scheduler.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.vms.*}: restarts (docs/vm-lifecycle.md).
 *
 * @param restartDelay the first delay before restarting a VM whose task ended, counted from the end
 * @param maxRestartDelay the cap of the doubling delay
 */
@ConfigurationProperties("rota.vms")
public record VmSettings(
    @Bindable(defaultValue = "15s") Duration restartDelay,
    @Bindable(defaultValue = "5m") Duration maxRestartDelay) {}
