package dev.rota.agents;

/**
 * Where a worker's agent is and how to prove to it that the caller is its controller.
 *
 * @param secret what the agent chose and sent when it registered; presented as a bearer token
 */
public record AgentAddress(String endpoint, String secret) {
  @Override
  public String toString() {
    return endpoint; // never the secret, in logs or messages
  }
}
