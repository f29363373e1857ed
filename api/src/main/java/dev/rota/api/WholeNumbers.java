package dev.rota.api;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON numbers as JSON Schema counts them: {@code 5.0} is the integer 5, as the OpenAPI document's
 * {@code type: integer} promises a client. A parsed body goes through here first, so that every
 * field that wants a whole number takes 5.0 and still refuses 5.5.
 */
final class WholeNumbers {
  private WholeNumbers() {}

  /**
   * The node with its whole numbers as integers; the very same node when it had none written as
   * 5.0.
   */
  @SuppressWarnings("unchecked")
  static Object normalize(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      boolean changed = false;
      for (Map.Entry<String, Object> e : ((Map<String, Object>) map).entrySet()) {
        Object v = normalize(e.getValue());
        changed |= v != e.getValue();
        out.put(e.getKey(), v);
      }
      return changed ? out : node;
    }
    if (node instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      boolean changed = false;
      for (Object item : list) {
        Object v = normalize(item);
        changed |= v != item;
        out.add(v);
      }
      return changed ? out : node;
    }
    if (node instanceof Double || node instanceof Float || node instanceof BigDecimal) {
      return whole((Number) node);
    }
    return node;
  }

  /**
   * The same number as an Integer, Long or BigInteger when it has no fraction (as the decoder reads
   * whole numbers), else itself.
   */
  private static Number whole(Number n) {
    BigDecimal d;
    if (n instanceof BigDecimal b) {
      d = b;
    } else {
      double v = n.doubleValue();
      if (Double.isNaN(v) || Double.isInfinite(v) || v != Math.rint(v)) {
        return n;
      }
      d = BigDecimal.valueOf(v);
    }
    BigInteger i;
    try {
      i = d.stripTrailingZeros().toBigIntegerExact();
    } catch (ArithmeticException e) {
      return n;
    }
    if (i.bitLength() < 32) {
      return i.intValue();
    }
    return i.bitLength() < 64 ? (Number) i.longValue() : i;
  }
}
