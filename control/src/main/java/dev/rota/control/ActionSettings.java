package dev.rota.control;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.api.action-wait}: how long a user's stop, start or restart waits for the VM's
 * workflow to carry it out before the caller is answered anyway (docs/configuration.md).
 */
@ConfigurationProperties("rota.api")
public record ActionSettings(@Bindable(defaultValue = "2s") Duration actionWait) {}
