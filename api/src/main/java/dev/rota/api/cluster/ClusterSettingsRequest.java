package dev.rota.api.cluster;

import dev.rota.api.Durations;
import dev.rota.api.ShownAs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * {@code PUT /v1/cluster-settings}: every setting at once, one left out set to its default.
 *
 * @param defaultMaxRunDuration the lease a VM or set submitted without {@code maxRunDuration} gets
 *     (stopped when it runs out); left out or null for none
 */
@Serdeable
@ShownAs(ClusterSettingsView.class)
public record ClusterSettingsRequest(
    @NotNull
        @Pattern(
            regexp = "^(optimize-utilization|distribute-load)$",
            message = "must be one of \"optimize-utilization\", \"distribute-load\"")
        String schedulerProfile,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE)
        String defaultMaxRunDuration) {}
