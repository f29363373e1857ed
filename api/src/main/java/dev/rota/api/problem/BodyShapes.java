package dev.rota.api.problem;

import dev.rota.api.RequestFields;
import dev.rota.api.ShownAs;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Names the field a JSON body got wrong when the decoder could not say: refuses a field the request
 * record does not have (but for those of the view it is {@link ShownAs}), and compares each field's
 * JSON kind (string, number, list, object, …) with what the record declares.
 */
public final class BodyShapes {
  /** A record's fields and their declared types. */
  private record Component(String name, Type type) {}

  /**
   * Worked out once per record: the reflection behind it is as costly as the rest of a request's
   * checking.
   */
  private static final ClassValue<List<Component>> COMPONENTS =
      new ClassValue<>() {
        @Override
        protected List<Component> computeValue(Class<?> record) {
          return java.util.Arrays.stream(record.getRecordComponents())
              .map(c -> new Component(c.getName(), c.getGenericType()))
              .toList();
        }
      };

  private BodyShapes() {}

  /** The first field of {@code json} whose kind does not fit {@code type}, worded for the user. */
  public static Optional<String> explain(Class<?> type, Object json) {
    if (!type.isRecord()) {
      return Optional.empty();
    }
    if (!(json instanceof Map<?, ?> fields)) {
      return Optional.of("the body must be a JSON object, got " + kind(json));
    }
    Optional<String> unknown = unknown("", type, fields);
    if (unknown.isPresent()) {
      return unknown;
    }
    for (Component component : COMPONENTS.get(type)) {
      Object value = fields.get(component.name());
      if (value != null) {
        Optional<String> problem = check(component.name(), component.type(), value);
        if (problem.isPresent()) {
          return problem;
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> check(String field, Type expected, Object value) {
    Class<?> raw = raw(expected);
    if (List.class.isAssignableFrom(raw)) {
      if (!(value instanceof List<?> list)) {
        return mismatch(field, "a list", value);
      }
      for (int i = 0; i < list.size(); i++) {
        Optional<String> p = check(field + "[" + i + "]", argument(expected, 0), list.get(i));
        if (p.isPresent()) {
          return p;
        }
      }
    } else if (Map.class.isAssignableFrom(raw)) {
      if (!(value instanceof Map<?, ?> map)) {
        return mismatch(field, "an object", value);
      }
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Optional<String> p = check(field + "." + e.getKey(), argument(expected, 1), e.getValue());
        if (p.isPresent()) {
          return p;
        }
      }
    } else if (raw.isRecord()) {
      if (!(value instanceof Map<?, ?> fields)) {
        return mismatch(field, "an object", value);
      }
      Optional<String> unknown = unknown(field + ".", raw, fields);
      if (unknown.isPresent()) {
        return unknown;
      }
      for (Component component : COMPONENTS.get(raw)) {
        Object inner = fields.get(component.name());
        if (inner != null) {
          Optional<String> p = check(field + "." + component.name(), component.type(), inner);
          if (p.isPresent()) {
            return p;
          }
        }
      }
    } else if (raw == String.class && !(value instanceof String)) {
      return mismatch(field, "a string", value);
    } else if ((raw == Boolean.class || raw == boolean.class) && !(value instanceof Boolean)) {
      return mismatch(field, "true or false", value);
    } else if (Number.class.isAssignableFrom(raw) && !(value instanceof Number)) {
      return mismatch(field, "a number", value);
    } else if (WHOLE.contains(raw)
        && !(value instanceof Integer
            || value instanceof Long
            || value instanceof java.math.BigInteger)) {
      // Bodies are read with whole numbers already made integers (2.0 is 2): what is left has a
      // fraction, which the decoder would truncate.
      return Optional.of(field + ": must be a whole number, got " + value);
    }
    return Optional.empty();
  }

  /**
   * The first field of {@code fields} that {@code type} does not have, nor the view it is shown as;
   * with the known field it most likely meant, if one is close.
   */
  private static Optional<String> unknown(String prefix, Class<?> type, Map<?, ?> fields) {
    java.util.SortedSet<String> known = RequestFields.own(type);
    String first = null;
    for (Object key : fields.keySet()) {
      String name = String.valueOf(key);
      if (!RequestFields.takes(type, name) && (first == null || name.compareTo(first) < 0)) {
        first = name;
      }
    }
    if (first == null) {
      return Optional.empty();
    }
    String name = first;
    String meant =
        known.stream()
            .filter(k -> distance(k.toLowerCase(), name.toLowerCase()) <= 2)
            .findFirst()
            .map(k -> "; did you mean " + k + "?")
            .orElse("; the fields are " + String.join(", ", known));
    return Optional.of(prefix + name + ": is not a field of this request" + meant);
  }

  /** Levenshtein distance: how many letters to change, add or drop to make one word the other. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int change = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + change);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  private static final java.util.Set<Class<?>> WHOLE =
      java.util.Set.of(Integer.class, int.class, Long.class, long.class, Short.class, short.class);

  private static Optional<String> mismatch(String field, String wanted, Object value) {
    return Optional.of(field + ": must be " + wanted + ", got " + kind(value));
  }

  private static String kind(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof String) {
      return "a string";
    }
    if (value instanceof Number) {
      return "a number";
    }
    if (value instanceof Boolean) {
      return "a boolean";
    }
    if (value instanceof List) {
      return "a list";
    }
    if (value instanceof Map) {
      return "an object";
    }
    return value.getClass().getSimpleName();
  }

  private static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    return Object.class;
  }

  private static Type argument(Type type, int index) {
    if (type instanceof ParameterizedType p && p.getActualTypeArguments().length > index) {
      return p.getActualTypeArguments()[index];
    }
    return Object.class;
  }
}
