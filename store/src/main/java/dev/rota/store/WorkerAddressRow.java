package dev.rota.store;

import io.micronaut.core.annotation.Introspected;
import io.micronaut.core.annotation.Nullable;

/**
 * A worker's agent address alone, as {@link WorkerRepository#addresses()} reads it: a term calling
 * agents needs no more, and the whole row costs its JSON columns' parsing.
 */
@Introspected
public record WorkerAddressRow(
    String name,
    String endpoint,
    @Nullable String agentSecret,
    @Nullable String certificateSha256) {
  public AgentAddress agent() {
    return new AgentAddress(endpoint, agentSecret, certificateSha256);
  }
}
