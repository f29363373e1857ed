package dev.rota.api.workers;

import java.util.Map;
import java.util.TreeMap;

/** What the VMs placed on one worker hold. */
public record Allocation(Map<String, Long> resources, int vmCount) {
  public static final Allocation NONE = new Allocation(Map.of(), 0);

  /** This allocation with one more VM's request added; saturating, never overflowing. */
  public Allocation plus(Map<String, Long> request) {
    Map<String, Long> sum = new TreeMap<>(resources);
    request.forEach((name, amount) -> sum.merge(name, amount, Allocation::saturatingAdd));
    return new Allocation(sum, vmCount + 1);
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
