package dev.rota.agentapi;

/** An agent refused a request with a 4xx: asking again will not help. */
public class AgentRejectedException extends RuntimeException {
  private final int status;

  public AgentRejectedException(int status, String message) {
    super(message);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
