package dev.rota.core.model;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A soft preference for workers whose labels meet a rule (Nomad's affinities): the rule is a {@link
 * LabelConstraint}'s, and {@code weight}, from -100 to 100 and not 0, says how much a worker that
 * meets it is wanted (or, below 0, avoided). A VM's affinities score each worker from -1 to 1: the
 * weights of those it meets over the sum of all their weights' sizes; placement adds that to the
 * profile's own score of the worker (0 to 1), so that a worker it prefers wins over one the profile
 * prefers but for the fullest against the emptiest.
 */
public record Affinity(LabelConstraint rule, int weight) {
  public static final int MIN_WEIGHT = -100;

  public static final int MAX_WEIGHT = 100;

  /** Preferring (or avoiding) workers whose label {@code label} meets {@code operator values}. */
  public Affinity(String label, String operator, List<String> values, int weight) {
    this(new LabelConstraint(label, operator, values), weight);
  }

  /** What is wrong with it, naming the part ({@code operator}, {@code values}, {@code weight}). */
  public Optional<LabelConstraint.Problem> problem() {
    if (weight == 0 || weight < MIN_WEIGHT || weight > MAX_WEIGHT) {
      return Optional.of(
          new LabelConstraint.Problem(
              "weight", "must be from " + MIN_WEIGHT + " to " + MAX_WEIGHT + ", and not 0"));
    }
    return rule().problem();
  }

  /**
   * How much VMs with {@code affinities} want each worker, by its labels: from -1 to 1, 0 for none.
   * Made once for a kind of VM, its rules compiled once.
   */
  public static java.util.function.ToDoubleFunction<Map<String, String>> scorer(
      List<Affinity> affinities) {
    if (affinities.isEmpty()) {
      return labels -> 0;
    }
    List<Predicate<Map<String, String>>> rules =
        affinities.stream().map(a -> a.rule().compiled()).toList();
    double total = affinities.stream().mapToInt(a -> Math.abs(a.weight())).sum();
    return labels -> {
      double sum = 0;
      for (int i = 0; i < rules.size(); i++) {
        if (rules.get(i).test(labels)) {
          sum += affinities.get(i).weight();
        }
      }
      return sum / total;
    };
  }

  /** As a person writes it: {@code 50 zone in [a, b]}. */
  @Override
  public String toString() {
    return weight + " " + rule();
  }
}
