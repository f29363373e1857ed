package dev.rota.agentapi;

import java.util.Map;
import java.util.TreeMap;

/**
 * Which parts of a VM's spec are secrets, by the secret's name: the VM is stored and shown with
 * these names only, and its agent gets the values at start, over its TLS link, and writes none of
 * them to its records.
 *
 * @param env environment variables whose value is a secret: variable to secret name
 * @param userData the secret that is the guest's cloud-init user data, or null
 * @param startupScript the secret that is the guest's startup script, or null
 */
public record SecretRefs(Map<String, String> env, String userData, String startupScript) {
  public SecretRefs {
    env = env == null || env.isEmpty() ? Map.of() : Map.copyOf(new TreeMap<>(env));
  }

  /** Whether it refers to no secret (static, so that no serializer takes it for a property). */
  public static boolean none(SecretRefs refs) {
    return refs == null
        || (refs.env.isEmpty() && refs.userData == null && refs.startupScript == null);
  }

  /** The names of the secrets it refers to, each once. */
  public java.util.Set<String> names() {
    java.util.Set<String> names = new java.util.TreeSet<>(env.values());
    if (userData != null) {
      names.add(userData);
    }
    if (startupScript != null) {
      names.add(startupScript);
    }
    return names;
  }
}
