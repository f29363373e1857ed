package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.model.DataType;
import java.time.Instant;
import java.util.List;

/**
 * A caller of the API.
 *
 * @param tokenHash SHA-256 of its token, hex; the token itself is shown once and never stored
 * @param worker the one worker a {@code worker} token may act for
 */
@MappedEntity("service_accounts")
public record ServiceAccountRow(
    @Id String name,
    String tokenHash,
    @TypeDef(type = DataType.STRING, converter = Converters.StringList.class) List<String> roles,
    @Nullable String worker,
    Instant createdAt) {}
