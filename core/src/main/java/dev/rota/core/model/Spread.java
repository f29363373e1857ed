package dev.rota.core.model;

import java.util.Optional;

/**
 * How a VM set's replicas are spread over workers: not at all, never two on one worker (Nomad's
 * {@code distinct_hosts}), or evenly over the values of a worker label (Kubernetes' topology spread
 * with a skew of one). Stored and compared as its {@link #wireName()}.
 */
public sealed interface Spread {
  Spread NONE = new None();
  Spread DISTINCT_WORKERS = new DistinctWorkers();

  /** {@code none}, {@code distinct-workers} or {@code label:<key>}. */
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
   * Per value of {@code key} among the workers that may take the set, replica counts within one.
   */
  record ByLabel(String key) implements Spread {
    @Override
    public String wireName() {
      return "label:" + key;
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
      return Optional.of(new ByLabel(wire.substring(6)));
    }
    return Optional.empty();
  }
}
