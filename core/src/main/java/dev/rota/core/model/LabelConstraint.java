package dev.rota.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A rule on one worker label that a VM's worker must meet (Nomad's constraint operators,
 * Kubernetes' node affinity operators): {@code =} and {@code !=} a value, {@code in} and {@code
 * notIn} a list, {@code exists} and {@code notExists}, {@code regexp} (the whole value matches),
 * and {@code version} (the value, read as dotted numbers, meets every comparison of a list such as
 * {@code ">= 6.1, < 7"}). A worker without the label meets {@code !=}, {@code notIn} and {@code
 * notExists} only.
 *
 * @param values what the operator compares with: one for {@code =}, {@code !=}, {@code regexp} and
 *     {@code version}, one or more for {@code in} and {@code notIn}, none for {@code exists} and
 *     {@code notExists}
 */
public record LabelConstraint(String label, String operator, List<String> values) {
  public static final List<String> OPERATORS =
      List.of("=", "!=", "in", "notIn", "exists", "notExists", "regexp", "version");

  /** How many steps a regular expression may take on one label's value before it counts as no. */
  static final int REGEXP_STEPS = 100_000;

  public LabelConstraint {
    values = values == null ? List.of() : List.copyOf(values);
  }

  /** Whether a worker with {@code labels} meets it. */
  public boolean admits(Map<String, String> labels) {
    return compiled().test(labels);
  }

  /**
   * {@link #admits} with its regular expression compiled once: for testing many workers' labels.
   */
  public Predicate<Map<String, String>> compiled() {
    String first = values.isEmpty() ? null : values.get(0);
    return switch (operator) {
      case "=" -> labels -> first.equals(labels.get(label));
      case "!=" -> labels -> !first.equals(labels.get(label));
      case "in" ->
          labels -> {
            String value = labels.get(label);
            return value != null && values.contains(value);
          };
      case "notIn" ->
          labels -> {
            String value = labels.get(label);
            return value == null || !values.contains(value);
          };
      case "exists" -> labels -> labels.containsKey(label);
      case "notExists" -> labels -> !labels.containsKey(label);
      case "regexp" -> {
        Pattern pattern = Pattern.compile(first);
        yield labels -> {
          String value = labels.get(label);
          return value != null && BoundedMatch.matches(pattern, value, REGEXP_STEPS);
        };
      }
      case "version" -> {
        Predicate<String> meets = Versions.comparisons(first);
        yield labels -> {
          String value = labels.get(label);
          return value != null && meets.test(value);
        };
      }
      default -> labels -> false;
    };
  }

  /**
   * What is wrong with it, as a sentence naming the part ({@code operator}, {@code values}), or
   * empty when nothing is: an unknown operator, the wrong number of values, a regular expression
   * that does not compile, a version comparison that does not parse.
   */
  public Optional<Problem> problem() {
    if (!OPERATORS.contains(operator)) {
      return Optional.of(new Problem("operator", "must be one of " + String.join(", ", OPERATORS)));
    }
    int n = values.size();
    switch (operator) {
      case "exists", "notExists" -> {
        if (n != 0) {
          return Optional.of(new Problem("values", "takes none with " + operator));
        }
      }
      case "in", "notIn" -> {
        if (n == 0) {
          return Optional.of(new Problem("values", "needs one or more with " + operator));
        }
      }
      default -> {
        if (n != 1) {
          return Optional.of(new Problem("values", "needs exactly one with " + operator));
        }
      }
    }
    if (operator.equals("regexp")) {
      try {
        Pattern.compile(values.get(0));
      } catch (PatternSyntaxException e) {
        return Optional.of(
            new Problem("values", "is not a regular expression: " + e.getDescription()));
      }
    }
    if (operator.equals("version") && Versions.problem(values.get(0)) != null) {
      return Optional.of(new Problem("values", Versions.problem(values.get(0))));
    }
    return Optional.empty();
  }

  /** What is wrong with one part of a constraint. */
  public record Problem(String part, String message) {}

  /** As a person writes it: {@code zone in [a, b]}, {@code gpu exists}. */
  @Override
  public String toString() {
    return switch (operator) {
      case "exists", "notExists" -> label + " " + operator;
      case "in", "notIn" -> label + " " + operator + " " + values;
      default -> label + " " + operator + " " + values.get(0);
    };
  }

  /** The constraints of {@code all} that {@code labels} do not meet. */
  public static List<LabelConstraint> unmet(List<LabelConstraint> all, Map<String, String> labels) {
    List<LabelConstraint> unmet = new ArrayList<>();
    for (LabelConstraint c : all) {
      if (!c.admits(labels)) {
        unmet.add(c);
      }
    }
    return unmet;
  }
}
