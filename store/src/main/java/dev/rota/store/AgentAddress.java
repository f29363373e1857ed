package dev.rota.store;

import io.micronaut.core.annotation.Nullable;

/**
 * Where a worker's agent is and how each side knows the other.
 *
 * @param secret what the agent chose and sent when it registered; presented as a bearer token
 * @param certificateSha256 the SHA-256 of the agent's HTTPS certificate, pinned at its
 *     registration: an {@code https} endpoint is trusted if it presents exactly this certificate,
 *     and no other
 */
public record AgentAddress(
    String endpoint, @Nullable String secret, @Nullable String certificateSha256) {
  public AgentAddress(String endpoint, String secret) {
    this(endpoint, secret, null);
  }

  @Override
  public String toString() {
    return endpoint; // never the secret, in logs or messages
  }
}
