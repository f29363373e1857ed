package dev.rota.core.model;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How a VM set's replicas are spread over workers: not at all, never two on one worker (Nomad's
 * {@code distinct_hosts}), or over the values of a worker label, evenly (Kubernetes' topology
 * spread with a skew of one) or by target percentages (Nomad's spread targets). Stored and compared
 * as its {@link #wireName()}.
 */
public sealed interface Spread {
  Spread NONE = new None();
  Spread DISTINCT_WORKERS = new DistinctWorkers();

  /**
   * {@code none}, {@code distinct-workers}, {@code label:<key>} or {@code label:<key>;a=70,b=30}.
   */
  String wireName();

  record None() implements Spread {
    @Override
    public String wireName() {
      return "none";
    }
  }

  record DistinctWorkers() implements Spread {
    @Override
    public String wireName() {
      return "distinct-workers";
    }
  }

  /**
   * Over the values of {@code key} among the workers that may take the set: evenly (replica counts
   * within one), or by {@code targets}, a share in percent for some values (Nomad's spread
   * targets), the rest of 100 shared evenly by the values not named. Each next replica goes to the
   * value furthest below its share ({@link SpreadShares}): ten replicas over {@code a: 70, b: 30}
   * are seven and three, over {@code a: 50} and two values more five, three and two.
   *
   * @param targets percent by value, summing to at most 100; empty for an even spread
   */
  record ByLabel(String key, Map<String, Integer> targets) implements Spread {
    public ByLabel {
      targets = targets == null ? Map.of() : Map.copyOf(new TreeMap<>(targets));
    }

    public ByLabel(String key) {
      this(key, Map.of());
    }

    @Override
    public String wireName() {
      if (targets.isEmpty()) {
        return "label:" + key;
      }
      StringBuilder b = new StringBuilder("label:").append(key).append(';');
      new TreeMap<>(targets).forEach((v, pct) -> b.append(v).append('=').append(pct).append(','));
      return b.substring(0, b.length() - 1);
    }

    /** What is wrong with the targets, or null: a share out of 1 to 100, all at most 100. */
    public String problem() {
      for (Map.Entry<String, Integer> e : targets.entrySet()) {
        if (e.getValue() == null || e.getValue() < 1 || e.getValue() > 100) {
          return "a share is a whole percent from 1 to 100, not " + e.getValue();
        }
      }
      int sum = targets.values().stream().mapToInt(Integer::intValue).sum();
      return sum > 100 ? "the shares add up to " + sum + " percent, more than 100" : null;
    }
  }

  /** The spread spelled {@code wire}, if it is one. */
  static Optional<Spread> parse(String wire) {
    if (wire == null) {
      return Optional.empty();
    }
    if (wire.equals(NONE.wireName())) {
      return Optional.of(NONE);
    }
    if (wire.equals(DISTINCT_WORKERS.wireName())) {
      return Optional.of(DISTINCT_WORKERS);
    }
    if (wire.startsWith("label:") && wire.length() > 6) {
      String rest = wire.substring(6);
      int semi = rest.indexOf(';');
      if (semi < 0) {
        return Optional.of(new ByLabel(rest));
      }
      Map<String, Integer> targets = new TreeMap<>();
      for (String pair : rest.substring(semi + 1).split(",")) {
        int eq = pair.indexOf('=');
        targets.put(pair.substring(0, eq), Integer.parseInt(pair.substring(eq + 1)));
      }
      return Optional.of(new ByLabel(rest.substring(0, semi), targets));
    }
    return Optional.empty();
  }
}
