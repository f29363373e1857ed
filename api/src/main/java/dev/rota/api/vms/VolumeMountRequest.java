package dev.rota.api.vms;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * A data volume a {@code qemu} VM mounts ({@code POST /v1/volumes} makes it): by its name, and
 * where a guest with cloud-init mounts it ({@code mountPath}; without one, the guest finds it as
 * {@code /dev/disk/by-id/virtio-<name>} and mounts it itself).
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record VolumeMountRequest(
    @NotNull
        @Pattern(
            regexp = dev.rota.api.volumes.VolumeRequest.NAME,
            message = dev.rota.api.volumes.VolumeRequest.NAME_MESSAGE)
        String name,
    @Nullable
        @Size(max = 255)
        @Pattern(
            regexp = "^/[^\\s,\\\\\"]*$",
            message = "must be an absolute path without spaces, commas or quotes")
        String mountPath) {}
