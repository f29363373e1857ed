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
  /** May create, replace and delete secrets; never read one's value (no one may). */
  SECRETS_WRITE("secrets:write"),
  /** May refer to secrets from a VM's env and guest, and list their names. */
  SECRETS_USE("secrets:use"),
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
