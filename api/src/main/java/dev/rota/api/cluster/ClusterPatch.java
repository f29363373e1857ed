package dev.rota.api.cluster;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Size;

/**
 * {@code PATCH /v1/cluster}: a cluster-wide pause, each part left as it is when not given.
 *
 * @param schedulingPaused no placements or moves; terms still observe, judge health and report
 * @param rejectSubmissions new VMs and VM sets answered 503 with the reason and Retry-After
 * @param reason shown to users with either: in every pending VM's message and in every refusal
 */
@Serdeable
public record ClusterPatch(
    @Nullable Boolean schedulingPaused,
    @Nullable Boolean rejectSubmissions,
    @Nullable @Size(min = 1, max = 512) String reason) {}
