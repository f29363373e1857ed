package dev.rota.api.auth;

import java.util.Arrays;
import java.util.Optional;

/** The API's roles (docs/security.md). */
public enum Role {
  COMPUTE_READ("compute:read"),
  COMPUTE_WRITE("compute:write"),
  /** May open connections to VMs' ports through the controller ({@code rota vm port-forward}). */
  COMPUTE_CONNECT("compute:connect"),
  ADMIN_READ("admin:read"),
  ADMIN_WRITE("admin:write"),
  /**
   * An agent: may register and heartbeat its own worker and read its own assignments, nothing else.
   */
  WORKER("worker");

  private final String wireName;

  Role(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static Optional<Role> parse(String s) {
    return Arrays.stream(values()).filter(r -> r.wireName.equals(s)).findFirst();
  }
}
