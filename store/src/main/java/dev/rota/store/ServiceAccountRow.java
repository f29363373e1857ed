package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.model.DataType;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A caller of the API.
 *
 * @param tokenHash SHA-256 of its token, hex; the token itself is shown once and never stored
 * @param roles the roles it holds in every namespace
 * @param namespaceRoles the roles it holds in one namespace only, by namespace
 * @param worker the one worker a {@code worker} token may act for
 */
@MappedEntity("service_accounts")
public record ServiceAccountRow(
    @Id String name,
    String tokenHash,
    @TypeDef(type = DataType.STRING, converter = Converters.StringList.class) List<String> roles,
    @TypeDef(type = DataType.STRING, converter = Converters.StringLists.class)
        Map<String, List<String>> namespaceRoles,
    @Nullable String worker,
    Instant createdAt) {}
