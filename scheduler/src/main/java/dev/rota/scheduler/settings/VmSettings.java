package dev.rota.scheduler.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.vms.*}: restarts (docs/vm-lifecycle.md) and workflow starts (docs/api.md).
 *
 * @param restartDelay the first delay before restarting a VM whose task ended, counted from the end
 * @param maxRestartDelay the cap of the doubling delay
 * @param workflowStartDelay how long after its submission a VM's workflow is started, unless a
 *     user's action or delete needs it sooner
 */
@ConfigurationProperties("rota.vms")
public record VmSettings(
    @Bindable(defaultValue = "15s") Duration restartDelay,
    @Bindable(defaultValue = "5m") Duration maxRestartDelay,
    @Bindable(defaultValue = "2s") Duration workflowStartDelay) {}
