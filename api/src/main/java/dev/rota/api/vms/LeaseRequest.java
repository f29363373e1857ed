package dev.rota.api.vms;

import dev.rota.api.Durations;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * {@code PUT /v1/vms/{name}/lease}: how much later the lease under way runs out. The lease is the
 * VM's {@code maxRunDuration}, begun when it first ran.
 */
@Serdeable
public record LeaseRequest(
    @NotNull @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE) String extendBy) {}
