package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A secret: its value sealed by {@link SecretBox}, readable only with the operator's key.
 *
 * @param sealed base64 of the nonce and the ciphertext
 * @param namespace the namespace whose VMs may refer to it
 */
@MappedEntity("secrets")
public record SecretRow(
    @Id String name, String sealed, Instant createdAt, Instant updatedAt, String namespace) {}
