package dev.rota.api.templates;

import dev.rota.api.Durations;
import dev.rota.api.problem.Problems;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A template's parameters: their values checked against their types, and put into a spec. */
final class Parameters {
  private Parameters() {}

  /** {@code value}, a parameter's of {@code type}; a 400 naming {@code field} otherwise. */
  static Object checked(String type, Object value, String field) {
    boolean fits =
        switch (type) {
          case "string" -> value instanceof String;
          case "integer" -> value instanceof Integer || value instanceof Long;
          case "boolean" -> value instanceof Boolean;
          case "duration" -> value instanceof String s && s.matches(Durations.PATTERN);
          case "list" ->
              value instanceof List<?> list && list.stream().allMatch(i -> i instanceof String);
          default -> false;
        };
    if (!fits) {
      throw Problems.badRequest(
          field,
          switch (type) {
            case "integer" -> "must be a whole number";
            case "boolean" -> "must be true or false";
            case "duration" -> "must be a duration such as 30s, 5m or 2h";
            case "list" -> "must be a list of strings";
            default -> "must be a string";
          });
    }
    return value;
  }

  /**
   * {@code spec} with {@code value} at {@code path} ({@code resources.cpu}), the objects on the way
   * made where missing; a 400 naming {@code field} when a value on the way is not an object.
   */
  @SuppressWarnings("unchecked")
  static void put(Map<String, Object> spec, String path, Object value, String field) {
    String[] names = path.split("\\.");
    Map<String, Object> at = spec;
    for (int i = 0; i < names.length - 1; i++) {
      Object next = at.get(names[i]);
      if (next == null) {
        next = new HashMap<String, Object>();
      } else if (next instanceof Map<?, ?> map) {
        next = new HashMap<>((Map<String, Object>) map);
      } else {
        throw Problems.badRequest(
            field, "spec." + names[i] + " is not an object, so " + path + " cannot be set");
      }
      at.put(names[i], next);
      at = (Map<String, Object>) next;
    }
    at.put(names[names.length - 1], value);
  }
}
