package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;

/**
 * A data volume as a VM's spec names it.
 *
 * @param name the volume's name
 * @param mountPath where a guest with cloud-init mounts it; null: the guest mounts it itself
 */
@Serdeable
public record VolumeMount(String name, @Nullable String mountPath) {}
