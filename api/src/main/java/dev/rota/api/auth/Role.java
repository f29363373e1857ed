package dev.rota.api.auth;

import java.util.Arrays;
import java.util.Optional;

/** The API's roles (docs/security.md). */
public enum Role {
  COMPUTE_READ("compute:read", true),
  COMPUTE_WRITE("compute:write", true),
  /** May open connections to VMs' ports through the controller ({@code rota vm port-forward}). */
  COMPUTE_CONNECT("compute:connect", true),
  ADMIN_READ("admin:read", false),
  /** May create, replace and delete secrets; never read one's value (no one may). */
  SECRETS_WRITE("secrets:write", true),
  /** May refer to secrets from a VM's env and guest, and list their names. */
  SECRETS_USE("secrets:use", true),
  ADMIN_WRITE("admin:write", false),
  /**
   * An agent: may register and heartbeat its own worker and read its own assignments, nothing else.
   */
  WORKER("worker", false);

  private final String wireName;
  private final boolean inNamespace;

  Role(String wireName, boolean inNamespace) {
    this.wireName = wireName;
    this.inNamespace = inNamespace;
  }

  /** Whether an account may hold it in one namespace only: what acts on a namespace's objects. */
  public boolean inNamespace() {
    return inNamespace;
  }

  public String wireName() {
    return wireName;
  }

  /** What a refusal says a call takes: "compute:read or admin:read". */
  public static String names(Role... any) {
    return any.length == 0
        ? "a role no account has"
        : String.join(" or ", Arrays.stream(any).map(Role::wireName).toList());
  }

  public static Optional<Role> parse(String s) {
    return Arrays.stream(values()).filter(r -> r.wireName.equals(s)).findFirst();
  }
}
