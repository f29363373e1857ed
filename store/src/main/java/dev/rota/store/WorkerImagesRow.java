package dev.rota.store;

import io.micronaut.core.annotation.Introspected;

/** A worker's held images as stored: JSON text, read through {@link WorkerImages}. */
@Introspected
public record WorkerImagesRow(String name, String images) {}
