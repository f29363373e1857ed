package dev.rota.api.vms;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * What the API's links into the Temporal Web UI need of {@code rota.temporal.*}.
 *
 * @param uiUrl the Web UI to link into; null or blank: the one the host runs itself, if any
 * @param namespace the namespace the workflows run in
 */
@ConfigurationProperties("rota.temporal")
public record TemporalUiSettings(
    @Nullable String uiUrl, @Bindable(defaultValue = "default") String namespace) {}
