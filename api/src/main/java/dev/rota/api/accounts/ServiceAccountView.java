package dev.rota.api.accounts;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import dev.rota.store.ServiceAccountRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A service account; {@code token} only in the answer to its creation, never again. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Serdeable
public record ServiceAccountView(
    String name,
    List<String> roles,
    Map<String, List<String>> namespaceRoles,
    @Nullable String worker,
    Instant createdAt,
    @Nullable String token)
    implements Named {

  static ServiceAccountView of(ServiceAccountRow row, @Nullable String token) {
    return new ServiceAccountView(
        row.name(),
        row.roles(),
        new TreeMap<>(row.namespaceRoles()),
        row.worker(),
        row.createdAt(),
        token);
  }
}
