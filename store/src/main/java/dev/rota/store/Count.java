package dev.rota.store;

import io.micronaut.core.annotation.Introspected;

/** One row of a GROUP BY count. */
@Introspected
public record Count(String label, long total) {}
