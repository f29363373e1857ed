package dev.rota.api.forward;

import dev.rota.api.Durations;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Pattern;

/**
 * {@code POST /v1/vms/{name}/access-tokens}: how long the token lasts (15m if not given, 24h at
 * most).
 */
@Serdeable
public record AccessTokenRequest(
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE) String ttl) {
  static final int DEFAULT_SECONDS = 15 * 60;
  static final int MAX_SECONDS = 24 * 3600;
}
