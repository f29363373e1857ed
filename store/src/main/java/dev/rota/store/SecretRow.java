package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A secret: its value sealed by {@link SecretBox}, readable only with the operator's key.
 *
 * @param sealed base64 of the nonce and the ciphertext
 */
@MappedEntity("secrets")
public record SecretRow(@Id String name, String sealed, Instant createdAt, Instant updatedAt) {}
