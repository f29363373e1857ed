package dev.rota.api.vms;

import dev.rota.api.Names;
import io.micronaut.serde.annotation.Serdeable;
import java.util.Map;

/**
 * A value given as a secret's name, {@code {"secretRef": "runner-token"}}, where a request takes a
 * string: the VM is stored and shown with the name, and its agent gets the value at start.
 */
@Serdeable
public record SecretRef(String secretRef) {
  static final String HOW = "must be a string, or {\"secretRef\": \"<secret name>\"}";

  /**
   * The secret {@code value} refers to, or null when it is a string of at most {@code max}
   * characters; anything else is a 400 naming {@code field}.
   */
  static String nameIn(Object value, String field, int max) {
    if (value instanceof String s) {
      if (s.length() > max) {
        throw dev.rota.api.problem.Problems.badRequest(
            field, "must be at most " + max + " characters");
      }
      return null;
    }
    if (value instanceof Map<?, ?> m
        && m.size() == 1
        && m.get("secretRef") instanceof String name) {
      if (!name.matches(Names.DNS_LABEL)) {
        throw dev.rota.api.problem.Problems.badRequest(
            field + ".secretRef", Names.DNS_LABEL_MESSAGE);
      }
      return name;
    }
    throw dev.rota.api.problem.Problems.badRequest(field, HOW);
  }

  /** {@code value} as shown: the secret's name when {@code secret} is one, else the value. */
  static Object shown(String value, String secret) {
    return secret != null ? new SecretRef(secret) : value;
  }
}
