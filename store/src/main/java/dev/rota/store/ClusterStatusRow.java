package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * The scheduler's read model: its last finished term.
 *
 * @param id the cluster workflow's id
 */
@MappedEntity("cluster_status")
public record ClusterStatusRow(
    @Id String id, long term, @Nullable Instant lastTermAt, long lastTermMillis) {}
