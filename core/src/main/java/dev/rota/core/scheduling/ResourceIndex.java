package dev.rota.core.scheduling;

import java.util.HashMap;
import java.util.Map;

/**
 * The resources named in one run of placement or rebalancing, each given a position, so that
 * quantities are arrays added and compared position by position rather than maps looked up by name.
 */
final class ResourceIndex {
  private final Map<String, Integer> positions = new HashMap<>();

  void add(String resource) {
    positions.putIfAbsent(resource, positions.size());
  }

  int size() {
    return positions.size();
  }

  /** The position of {@code resource}, or null if no one named it. */
  Integer of(String resource) {
    return positions.get(resource);
  }

  /** {@code amounts} as an array; every name in it must have been added. */
  long[] vector(Map<String, Long> amounts) {
    long[] v = new long[positions.size()];
    amounts.forEach((name, amount) -> v[positions.get(name)] = amount);
    return v;
  }

  long[] zero() {
    return new long[positions.size()];
  }
}
