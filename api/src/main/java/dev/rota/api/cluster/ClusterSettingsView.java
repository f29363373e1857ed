package dev.rota.api.cluster;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/** {@code /v1/cluster-settings}, in and out. */
@Serdeable
public record ClusterSettingsView(
    @NotNull
        @Pattern(
            regexp = "^(optimize-utilization|distribute-load)$",
            message = "must be one of \"optimize-utilization\", \"distribute-load\"")
        String schedulerProfile) {}
