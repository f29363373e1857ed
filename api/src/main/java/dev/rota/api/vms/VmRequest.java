package dev.rota.api.vms;

import dev.rota.api.Names;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/vms}. Server-owned fields (status, worker, times, …) are not part of it, so a body
 * that carries them has them ignored.
 */
@Serdeable
public record VmRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @Nullable @Pattern(regexp = "^[a-z0-9][a-z0-9-]{0,62}$", message = "must be a runtime name such as process") String runtime,
    @Nullable @Size(max = 2048) String image,
    @Nullable List<@NotNull String> command,
    @Nullable Map<@NotBlank String, @NotNull String> env,
    @Nullable Map<@NotBlank String, @NotNull Object> resources,
    @Nullable Map<@NotBlank String, @NotNull String> labels,
    @Nullable @Pattern(regexp = "^(Never|OnFailure|Always)$", message = "must be one of \"Never\", \"OnFailure\", \"Always\"") String restartPolicy) {}
