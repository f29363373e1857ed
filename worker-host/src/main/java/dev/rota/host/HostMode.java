package dev.rota.host;

/** How the host runs: everything in one process for development, or against real services. */
public enum HostMode {
  /** Embedded Temporal, H2 on file, API on loopback with auth off. */
  DEV("dev"),
  /** A real Temporal service and database. */
  PRODUCTION("production");

  private final String environment;

  HostMode(String environment) {
    this.environment = environment;
  }

  /** The Micronaut environment, which selects {@code application-<environment>.yml}. */
  public String environment() {
    return environment;
  }
}
