package dev.rota.api;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.api.*}: what the API lets each caller and the whole host take on
 * (docs/configuration.md).
 *
 * @param rateLimit requests a second each caller may send after its burst
 * @param rateBurst requests a caller may send at once before its rate applies
 * @param maxInFlight requests the host works on at once, watches apart; one more is a 429
 * @param maxWatches watches and followed logs open at once; each holds a thread
 * @param queryDeadline how long {@code GET /v1/cluster} waits for the scheduler's query
 */
@ConfigurationProperties("rota.api")
public record ApiSettings(
    @Bindable(defaultValue = "100") double rateLimit,
    @Bindable(defaultValue = "200") int rateBurst,
    @Bindable(defaultValue = "64") int maxInFlight,
    @Bindable(defaultValue = "256") int maxWatches,
    @Bindable(defaultValue = "500ms") Duration queryDeadline) {}
