package dev.rota.core.scheduling;

import java.util.Map;
import java.util.TreeMap;

/**
 * Arithmetic on resource quantities (name to non-negative amount). Saturating: a sum never wraps
 * past {@code Long.MAX_VALUE} and a difference never goes below zero, so a worker reporting less
 * capacity than it already holds has nothing free, never a huge wrapped amount.
 */
public final class Resources {
  private Resources() {}

  public static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  /** {@code a - b}, floored at zero. */
  public static long flooredSubtract(long a, long b) {
    return b >= a ? 0 : a - b;
  }

  /** The sum of two quantity maps, sorted by name. */
  public static Map<String, Long> plus(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> sum = new TreeMap<>(a);
    b.forEach((name, amount) -> sum.merge(name, amount, Resources::saturatingAdd));
    return sum;
  }

  /**
   * What is free of {@code capacity} once {@code allocated} is held; a missing name counts as 0.
   */
  public static Map<String, Long> free(Map<String, Long> capacity, Map<String, Long> allocated) {
    Map<String, Long> free = new TreeMap<>();
    capacity.forEach(
        (name, total) -> free.put(name, flooredSubtract(total, allocated.getOrDefault(name, 0L))));
    return free;
  }

  /** Whether every requested amount is free; a resource the worker does not list has 0 free. */
  public static boolean fits(Map<String, Long> request, Map<String, Long> free) {
    for (Map.Entry<String, Long> e : request.entrySet()) {
      if (e.getValue() > free.getOrDefault(e.getKey(), 0L)) {
        return false;
      }
    }
    return true;
  }

  /**
   * How full a worker is: the sum over its resources of the fraction held (what the profiles rank
   * workers by); a resource it offers none of counts for nothing.
   */
  public static double fullness(long[] allocated, long[] capacity) {
    double s = 0;
    for (int r = 0; r < capacity.length; r++) {
      if (capacity[r] > 0) {
        s += (double) allocated[r] / capacity[r];
      }
    }
    return s;
  }
}
