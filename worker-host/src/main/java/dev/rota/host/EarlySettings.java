package dev.rota.host;

import java.util.Map;
import java.util.Optional;

/**
 * Settings the host reads before its application context exists (the data folder, the API's TLS).
 */
final class EarlySettings {
  private EarlySettings() {}

  /**
   * Given to the host, a system property, or the environment variable: the first that is not blank.
   */
  static Optional<String> get(Map<String, Object> props, String property, String variable) {
    return Optional.ofNullable(props.get(property))
        .map(Object::toString)
        .filter(v -> !v.isBlank())
        .or(() -> Optional.ofNullable(System.getProperty(property)).filter(v -> !v.isBlank()))
        .or(() -> Optional.ofNullable(System.getenv(variable)).filter(v -> !v.isBlank()));
  }
}
