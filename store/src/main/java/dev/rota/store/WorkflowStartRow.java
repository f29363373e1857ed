package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A submitted VM whose workflow is yet to be started; {@code vmSeq} is the submission it is of, and
 * {@code claimedBy} the host making it until {@code claimedUntil} (null: none is).
 */
@MappedEntity("workflow_starts")
public record WorkflowStartRow(
    @Id String vm,
    long vmSeq,
    Instant submittedAt,
    @io.micronaut.core.annotation.Nullable String claimedBy,
    @io.micronaut.core.annotation.Nullable Instant claimedUntil) {}
