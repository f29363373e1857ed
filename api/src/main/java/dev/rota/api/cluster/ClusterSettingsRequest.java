package dev.rota.api.cluster;

import dev.rota.api.Durations;
import dev.rota.api.ShownAs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * {@code PUT /v1/cluster-settings}: every setting at once, one left out set to its default.
 *
 * @param defaultMaxRunDuration the lease a VM or set submitted without {@code maxRunDuration} gets
 *     (stopped when it runs out); left out or null for none
 * @param instanceSizes the sizes a VM may name ({@code "size": "small"}), each the resources it
 *     gives: {@code {"small": {"cpu": 1, "memory": "1Gi"}}}; left out or null for none
 * @param preemption whether a waiting VM may evict running VMs of lower priority to make room; left
 *     out or null for false
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
        String defaultMaxRunDuration,
    @Nullable @Size(max = 64)
        Map<@NotNull String, @NotNull @Size(max = 32) Map<@NotNull String, @NotNull Object>>
            instanceSizes,
    @Nullable Boolean preemption) {}
