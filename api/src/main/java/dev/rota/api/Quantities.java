package dev.rota.api;

import dev.rota.api.problem.Problems;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.TreeMap;

/**
 * Resource quantities as users send them: whole, non-negative numbers by name, and memory also with
 * a binary unit ({@code 512Mi}, {@code 2Gi}, {@code 1Ti}; a plain number is MiB). Read from plain
 * JSON values rather than bound to {@code Long}, because binding would truncate 1.5 to 1 and answer
 * "lots" without naming the field.
 */
public final class Quantities {
  private Quantities() {}

  public static Map<String, Long> parse(String field, Map<String, Object> values) {
    Map<String, Long> result = new TreeMap<>();
    values.forEach(
        (name, value) ->
            result.put(
                name,
                name.equals(MEMORY)
                    ? memory(field + "." + name, value)
                    : quantity(field + "." + name, value)));
    return result;
  }

  static final String MEMORY = "memory";

  /**
   * Memory as a string: MiB, or a binary unit; the digits bounded so that every such string comes
   * to whole MiB that fit in a long, and so is taken (the document gives the same pattern).
   */
  public static final String MEMORY_PATTERN = "^([0-9]{1,15}(Mi|Gi)?|[0-9]{1,12}Ti)$";

  /** {@link #MEMORY_PATTERN} but none of zero: a VM's memory. */
  public static final String SOME_MEMORY_PATTERN =
      "^(?!0+(Mi|Gi|Ti)?$)" + MEMORY_PATTERN.substring(1);

  private static final java.util.regex.Pattern MEMORY_TEXT =
      java.util.regex.Pattern.compile(MEMORY_PATTERN);

  /** Memory in MiB: a whole number, or a string with a binary unit that comes to whole MiB. */
  private static long memory(String field, Object value) {
    if (!(value instanceof String text)) {
      return quantity(field, value, "MiB");
    }
    if (MEMORY_TEXT.matcher(text).matches()) {
      String digits = text.replaceAll("[A-Za-z]+$", "");
      long n = Long.parseLong(digits);
      return switch (text.substring(digits.length())) {
        case "Gi" -> n << 10;
        case "Ti" -> n << 20;
        default -> n; // MiB, written so or bare
      };
    }
    throw Problems.badRequest(
        field,
        "must be MiB as a whole number, or a quantity with a binary unit such as \"512Mi\","
            + " \"2Gi\" or \"1Ti\", got \""
            + text
            + "\"");
  }

  private static long quantity(String field, Object value) {
    return quantity(field, value, null);
  }

  private static long quantity(String field, Object value, String unit) {
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
        field,
        "must be a whole number"
            + (unit == null ? "" : " of " + unit)
            + " from 0 to "
            + Long.MAX_VALUE
            + ", got "
            + shown);
  }
}
