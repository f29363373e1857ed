package dev.rota.api.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/** {@code /v1/cluster-settings}, in and out. */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record ClusterSettingsView(
    @NotNull
        @Pattern(
            regexp = "^(optimize-utilization|distribute-load)$",
            message = "must be one of \"optimize-utilization\", \"distribute-load\"")
        String schedulerProfile) {}
