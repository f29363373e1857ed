package dev.rota.api.forward;

import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/** A VM's access token, shown this once: it opens that VM's sockets until {@code expiresAt}. */
@Serdeable
public record AccessTokenView(String vm, String token, Instant expiresAt) {}
