package dev.rota.store;

import io.micronaut.core.annotation.Introspected;

/** A worker's fetches under way as stored: JSON text, read through {@link WorkerImages}. */
@Introspected
public record WorkerPullsRow(String name, String pulls) {}
