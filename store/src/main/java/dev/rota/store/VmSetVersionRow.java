package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.model.DataType;
import java.time.Instant;

/**
 * One template a set has had: its {@code version} (from 1, one more at each change of template),
 * who gave it ({@code createdBy}, the caller's service account; null when not known) and when.
 * {@code seq} is its key, taken from the submissions' sequence.
 */
@MappedEntity("vm_set_versions")
public record VmSetVersionRow(
    @Id long seq,
    String setName,
    int version,
    @TypeDef(type = DataType.STRING, converter = Converters.Template.class) VmTemplate template,
    Instant createdAt,
    @Nullable String createdBy) {}
