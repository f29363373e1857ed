package dev.rota.core.scheduling;

import java.util.Map;

/**
 * What rebalancing may do this term.
 *
 * @param movesPerTerm the most moves one term starts; 0 turns rebalancing off
 * @param sets the VM sets whose replicas may move, by name
 */
public record Rebalancing(int movesPerTerm, Map<String, SetSnapshot> sets) {
  public static final Rebalancing OFF = new Rebalancing(0, Map.of());

  public Rebalancing {
    if (movesPerTerm < 0) {
      throw new IllegalArgumentException("movesPerTerm must not be negative: " + movesPerTerm);
    }
    sets = Map.copyOf(sets);
  }

  /** Whether any move may be made at all: a budget, and a set whose replicas may move. */
  public boolean active() {
    return movesPerTerm > 0 && !sets.isEmpty();
  }
}
