package dev.rota.api;

import dev.rota.api.problem.Problems;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.TreeMap;

/**
 * Resource quantities as users send them: whole, non-negative numbers by name. Read from plain JSON
 * values rather than bound to {@code Long}, because binding would truncate 1.5 to 1 and answer
 * "lots" without naming the field.
 */
public final class Quantities {
  private Quantities() {}

  public static Map<String, Long> parse(String field, Map<String, Object> values) {
    Map<String, Long> result = new TreeMap<>();
    values.forEach((name, value) -> result.put(name, quantity(field + "." + name, value)));
    return result;
  }

  private static long quantity(String field, Object value) {
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte) {
      long n = ((Number) value).longValue();
      if (n >= 0) {
        return n;
      }
    } else if (value instanceof BigInteger big && big.signum() >= 0 && big.bitLength() < 64) {
      return big.longValue();
    } else if (value instanceof BigDecimal decimal && decimal.signum() >= 0) {
      try {
        return decimal.longValueExact();
      } catch (ArithmeticException e) {
        // not whole, or too large: reported below
      }
    }
    String shown = value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
    throw Problems.badRequest(
        field, "must be a whole number from 0 to " + Long.MAX_VALUE + ", got " + shown);
  }
}
