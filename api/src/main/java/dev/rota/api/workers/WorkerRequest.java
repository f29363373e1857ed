package dev.rota.api.workers;

import dev.rota.api.Limits;
import dev.rota.api.Names;
import dev.rota.api.ShownAs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/workers}: an agent registering its machine. Server-owned fields are ignored.
 * {@code agentSecret} is what the controller must present to the agent; it is stored, never shown.
 * {@code images}, when given, is what the agent holds now, as in a heartbeat. {@code
 * certificateSha256} is the SHA-256 of the agent's HTTPS certificate: required with an {@code
 * https} endpoint, pinned at the first registration, and a later registration with another is
 * refused (409) until the worker is deleted. {@code notices} are sentences the agent says a person
 * should know of the worker (limits it cannot enforce, guests emulated in software); each
 * registration replaces them.
 */
@Serdeable
@ShownAs(WorkerView.class)
public record WorkerRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @NotNull @Size(max = 2048) @Pattern(regexp = Limits.HTTP_URL, message = Limits.HTTP_URL_MESSAGE)
        String endpoint,
    @Nullable @Size(max = 32)
        Map<
                @NotNull @Pattern(regexp = Limits.RESOURCE_NAME, message = Limits.RESOURCE_MESSAGE)
                String,
                @NotNull Object>
            resources,
    @Nullable @Size(max = 64)
        Map<
                @NotNull @Pattern(regexp = Limits.LABEL_KEY, message = Limits.LABEL_MESSAGE) String,
                @NotNull @Size(max = 253) String>
            labels,
    @Nullable @Size(max = 16)
        List<
                @NotNull
                @Pattern(
                    regexp = "^[a-z0-9][a-z0-9-]{0,62}$",
                    message = "must be a runtime name such as process")
                String>
            runtimes,
    @Nullable @Size(max = 255) String machineId,
    @Nullable @Size(min = 20, max = 128) String agentSecret,
    @Nullable @Size(max = HeldImage.MAX) List<@NotNull @Valid HeldImage> images,
    @Nullable
        @Pattern(
            regexp = "^[0-9a-f]{64}$",
            message = "must be the certificate's SHA-256: 64 lowercase hex digits")
        String certificateSha256,
    @Nullable @Size(max = 16) List<@NotNull @Size(min = 1, max = 1024) String> notices) {}
