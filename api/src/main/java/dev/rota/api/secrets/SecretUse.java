package dev.rota.api.secrets;

import dev.rota.agentapi.SecretRefs;
import dev.rota.api.auth.Caller;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.Problems;
import dev.rota.store.SecretBox;
import dev.rota.store.SecretRepository;
import dev.rota.store.SecretRow;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether a request may refer to the secrets it names: its caller holds {@code secrets:use}, and
 * each secret exists; else nothing is stored, and the answer names the field.
 */
@Singleton
public class SecretUse {
  private final SecretRepository secrets;
  private final SecretBox box;

  public SecretUse(SecretRepository secrets, SecretBox box) {
    this.secrets = secrets;
    this.box = box;
  }

  /**
   * Checks the secrets a VM's spec, written at {@code field}, refers to: each of its namespace's.
   */
  public void check(SecretRefs refs, String namespace, String field) {
    if (SecretRefs.none(refs)) {
      return;
    }
    Caller caller = Caller.current();
    if (!caller.holds(namespace, Role.SECRETS_USE)) {
      throw Problems.forbidden(
          "referring to a secret takes the secrets:use role: "
              + caller.lacks(namespace, Role.SECRETS_USE));
    }
    if (box.unavailable() != null) {
      throw Problems.conflict(box.unavailable());
    }
    Set<String> there =
        secrets.findByNameInList(refs.names()).stream()
            .filter(s -> s.namespace().equals(namespace))
            .map(SecretRow::name)
            .collect(Collectors.toSet());
    for (Map.Entry<String, String> e : refs.env().entrySet()) {
      missing(there, e.getValue(), field + "env." + e.getKey(), namespace);
    }
    missing(there, refs.userData(), field + "guest.userData", namespace);
    missing(there, refs.startupScript(), field + "guest.startupScript", namespace);
  }

  private static void missing(Set<String> there, String secret, String field, String namespace) {
    if (secret != null && !there.contains(secret)) {
      throw Problems.badRequest(
          field + ".secretRef",
          "secret '"
              + secret
              + "' does not exist in namespace "
              + namespace
              + " (POST /v1/secrets makes it)");
    }
  }
}
