package dev.rota.api.images;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * {@code POST /v1/images/prefetch}: an image (as a VM's {@code image} names it) to fetch onto every
 * worker that runs {@code qemu} VMs and carries every label of {@code workerSelector} (all such
 * workers when it is absent): label keys and values as a worker's.
 */
@Serdeable
public record ImagePrefetchRequest(
    @NotBlank
        @Size(max = 2048)
        @jakarta.validation.constraints.Pattern(
            regexp = dev.rota.api.Limits.DISK_IMAGE,
            message = dev.rota.api.Limits.DISK_IMAGE_MESSAGE)
        String image,
    @Nullable @Size(max = 16)
        Map<
                @NotNull
                @jakarta.validation.constraints.Pattern(
                    regexp = dev.rota.api.Limits.LABEL_KEY,
                    message = dev.rota.api.Limits.LABEL_MESSAGE)
                String,
                @NotNull @Size(max = 253) String>
            workerSelector) {}
