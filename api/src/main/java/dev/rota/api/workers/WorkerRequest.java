package dev.rota.api.workers;

import dev.rota.api.Names;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/** {@code POST /v1/workers}: an agent registering its machine. Server-owned fields are ignored. */
@Serdeable
public record WorkerRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @NotBlank @Size(max = 2048) String endpoint,
    @Nullable Map<@NotBlank String, @NotNull Object> resources,
    @Nullable Map<@NotBlank String, @NotNull String> labels,
    @Nullable List<@NotBlank String> runtimes,
    @Nullable @Size(max = 255) String machineId) {}
