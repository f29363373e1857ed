package dev.rota.store;

import io.micronaut.core.annotation.Introspected;
import io.micronaut.core.annotation.Nullable;
import java.time.Instant;

/**
 * What a term's probes and agent calls need of a worker, as {@link WorkerRepository#probeRows()}
 * reads it: its agent's address and its health and probe history; none of the JSON columns whose
 * parsing made the whole row's read a term's most costly query.
 */
@Introspected
public record WorkerProbeRow(
    String name,
    String endpoint,
    @Nullable String agentSecret,
    @Nullable String certificateSha256,
    String health,
    @Nullable Instant lastSeen,
    Instant createdAt,
    @Nullable Instant lastProbeAt,
    boolean lastProbeOk,
    int probeFailures,
    @Nullable String lastProbeError,
    @Nullable Instant flakyUntil) {
  public AgentAddress agent() {
    return new AgentAddress(endpoint, agentSecret, certificateSha256);
  }
}
