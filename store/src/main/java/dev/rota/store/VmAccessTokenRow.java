package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A token that opens one VM's sockets until it expires.
 *
 * @param tokenHash SHA-256 of the token, hex; the token itself is shown once and never stored
 * @param vmSeq the submission of the VM it was made for: a VM deleted and made again under the same
 *     name is another VM, which the token does not open
 * @param createdBy the account that asked for it
 */
@MappedEntity("vm_access_tokens")
public record VmAccessTokenRow(
    @Id String tokenHash,
    String vm,
    long vmSeq,
    String createdBy,
    Instant createdAt,
    Instant expiresAt) {}
