package dev.rota.core.model;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How a set's replicas stand against a label spread's shares ({@link Spread.ByLabel}): how many
 * each value of the label holds, and each value's weight. A value's share of {@code n} replicas is
 * {@code n * weight / weightSum}; how far it is below that is kept in whole units of {@code 1 /
 * weightSum} replicas, so that percentages compare without rounding.
 *
 * @param counts replicas by value, over the values of the workers that may take the set
 * @param weights each value's weight: its target, or the part of what the targets leave that each
 *     value not named gets, scaled so that all are whole numbers; 1 each for an even spread
 */
public record SpreadShares(Map<String, Integer> counts, Map<String, Long> weights) {
  public SpreadShares {
    counts = Map.copyOf(counts);
    weights = Map.copyOf(weights);
  }

  /** Where {@code counts}' replicas stand against {@code spread}'s shares. */
  public static SpreadShares of(Spread.ByLabel spread, Map<String, Integer> counts) {
    Map<String, Long> weights = new TreeMap<>();
    if (spread.targets().isEmpty()) {
      counts.keySet().forEach(v -> weights.put(v, 1L));
      return new SpreadShares(counts, weights);
    }
    long unnamed = counts.keySet().stream().filter(v -> !spread.targets().containsKey(v)).count();
    long left = 100L - spread.targets().values().stream().mapToLong(Integer::longValue).sum();
    for (String v : counts.keySet()) {
      Integer pct = spread.targets().get(v);
      weights.put(v, pct == null ? left : pct * Math.max(1, unnamed));
    }
    return new SpreadShares(counts, weights);
  }

  /** A move of one replica from the value furthest above its share to the one furthest below. */
  public record Move(String from, String to) {}

  /**
   * The values the next replica may go to: those furthest below their share once it is counted (for
   * an even spread, those holding fewest). Values of weight 0 take none.
   */
  public TreeSet<String> next() {
    long next = total() + 1;
    TreeSet<String> best = new TreeSet<>();
    long most = Long.MIN_VALUE;
    for (String value : new TreeSet<>(counts.keySet())) {
      if (weight(value) <= 0) {
        continue;
      }
      long below = below(value, next);
      if (below > most) {
        best.clear();
        most = below;
      }
      if (below == most) {
        best.add(value);
      }
    }
    return best;
  }

  /**
   * The move that mends the spread most, while the value furthest above its share and the one
   * furthest below are more than one replica apart (for an even spread, while two values' counts
   * differ by two or more); empty when none is needed.
   */
  public Optional<Move> mend() {
    long total = total();
    String most = null;
    String fewest = null;
    long mostBelow = 0;
    long fewestBelow = 0;
    for (String value : new TreeSet<>(counts.keySet())) {
      long below = below(value, total);
      if (counts.get(value) > 0 && (most == null || below < mostBelow)) {
        most = value;
        mostBelow = below;
      }
      if (weight(value) > 0 && (fewest == null || below > fewestBelow)) {
        fewest = value;
        fewestBelow = below;
      }
    }
    return most == null || fewest == null || fewestBelow - mostBelow <= weightSum()
        ? Optional.empty()
        : Optional.of(new Move(most, fewest));
  }

  /**
   * Whether a replica may move from value {@code from} to value {@code to}: towards a value with a
   * share, at least one replica further below it than the one it leaves (so the move leaves the two
   * no more than one replica the other way apart).
   */
  public boolean allows(String from, String to) {
    long total = total();
    return weight(to) > 0 && below(to, total) - below(from, total) >= weightSum();
  }

  /** How far {@code value} is below its share of {@code total} replicas, in units. */
  private long below(String value, long total) {
    return weight(value) * total - counts.getOrDefault(value, 0) * weightSum();
  }

  private long weight(String value) {
    return weights.getOrDefault(value, 0L);
  }

  private long weightSum() {
    return weights.values().stream().mapToLong(Long::longValue).sum();
  }

  private long total() {
    return counts.values().stream().mapToLong(Integer::longValue).sum();
  }
}
