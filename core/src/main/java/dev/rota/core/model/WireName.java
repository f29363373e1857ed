package dev.rota.core.model;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An enum whose values travel as fixed strings (the API's spelling), not as Java constant names.
 */
public interface WireName {
  String wireName();

  /** The constant spelled {@code value} on the wire, if any. */
  static <E extends Enum<E> & WireName> Optional<E> parse(Class<E> type, String value) {
    return Arrays.stream(type.getEnumConstants())
        .filter(e -> e.wireName().equals(value))
        .findFirst();
  }

  /** "a", "b" or "c": for messages that list what is allowed. */
  static <E extends Enum<E> & WireName> String allowed(Class<E> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(e -> "\"" + e.wireName() + "\"")
        .collect(Collectors.joining(", "));
  }
}
