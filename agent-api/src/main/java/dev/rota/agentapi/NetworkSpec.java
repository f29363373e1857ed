package dev.rota.agentapi;

import java.util.List;

/**
 * Where a {@code qemu} guest may connect to. Whatever the mode, the worker itself (its loopback and
 * every address it holds), link-local and private addresses stay out of reach unless the worker's
 * operator allows them; the VM's forwarded ports, console and exec work under every mode.
 *
 * @param egress {@link #NONE} (no connection out at all), {@link #INTERNET} (public addresses) or
 *     {@link #ALLOW} (only the addresses in {@code allow})
 * @param allow with {@link #ALLOW}: CIDRs ({@code 203.0.113.0/24}), addresses or host names (the
 *     agent resolves a name when the VM starts); null otherwise
 */
public record NetworkSpec(String egress, List<String> allow) {
  public static final String NONE = "none";
  public static final String INTERNET = "internet";
  public static final String ALLOW = "allow";

  /** A VM that says nothing of its network: the public internet only. */
  public static final NetworkSpec DEFAULT = new NetworkSpec(INTERNET, null);

  public NetworkSpec {
    allow = allow == null || allow.isEmpty() ? null : List.copyOf(allow);
  }

  /** {@code network}, or the default for a VM that gives none. */
  public static NetworkSpec orDefault(NetworkSpec network) {
    return network == null || network.egress() == null ? DEFAULT : network;
  }

  /** The addresses allowed, none when the mode allows no list. */
  public List<String> allowOrNone() {
    return allow == null ? List.of() : allow;
  }
}
