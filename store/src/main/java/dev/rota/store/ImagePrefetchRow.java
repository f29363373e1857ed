package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.model.DataType;
import java.time.Instant;
import java.util.Map;

/**
 * An image to fetch ahead onto every worker whose labels include {@code selector} (and that runs
 * qemu VMs), so that a VM of it starts without waiting for the fetch.
 */
@MappedEntity("image_prefetches")
public record ImagePrefetchRow(
    @Id String id,
    String image,
    @TypeDef(type = DataType.STRING, converter = Converters.Strings.class)
        Map<String, String> selector,
    Instant createdAt) {}
