package dev.rota.api.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;

/**
 * {@code /v1/cluster-settings} as shown.
 *
 * @param schedulerProfile how the scheduler places: {@code optimize-utilization} or {@code
 *     distribute-load}
 * @param defaultMaxRunDuration the lease a VM or set submitted without {@code maxRunDuration} gets;
 *     null for none
 * @param instanceSizes the sizes a VM may name, each its resources (memory in MiB)
 * @param preemption whether a waiting VM may evict running VMs of lower priority to make room
 */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record ClusterSettingsView(
    String schedulerProfile,
    @Nullable String defaultMaxRunDuration,
    java.util.Map<String, java.util.Map<String, Long>> instanceSizes,
    boolean preemption) {}
