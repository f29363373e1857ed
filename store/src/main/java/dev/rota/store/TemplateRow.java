package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A VM template: a VM's spec as its user gave it, without a name, and the parameters that fill its
 * fields when a VM is made of it.
 *
 * @param spec the spec, as JSON
 * @param parameters the parameters, as JSON: {@code [{"name", "type", "field", "default",
 *     "description"}]}
 * @param namespace the namespace whose VMs and sets may be made of it
 */
@MappedEntity("templates")
public record TemplateRow(
    @Id String name,
    String spec,
    String parameters,
    @Nullable String description,
    Instant createdAt,
    Instant updatedAt,
    String namespace) {}
