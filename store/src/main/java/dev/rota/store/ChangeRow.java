package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * One write to a VM or a worker in the change feed (see {@code db.migration.V1__Schema}).
 *
 * @param kind {@code vm} or {@code worker}
 * @param deleted whether the write removed it
 */
@MappedEntity("changes")
public record ChangeRow(
    @Id long id, String kind, String name, boolean deleted, Instant changedAt) {}
