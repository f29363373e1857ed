package dev.rota.agentapi;

import java.util.List;
import java.util.Optional;

/**
 * A VM's leave to go to workers with a taint ({@link Taint}), as Kubernetes writes it: {@code
 * Equal} tolerates the taint of its key with its value, {@code Exists} the taint of its key
 * whatever its value (and with no key, every taint); with an effect, only taints of that effect,
 * without one, either.
 *
 * @param operator {@code Equal} (null is taken for it) or {@code Exists}
 * @param value for {@code Equal}: the taint's value (null is taken for empty); none for {@code
 *     Exists}
 * @param effect {@code NoSchedule}, {@code PreferNoSchedule}, or null for both
 */
public record Toleration(String key, String operator, String value, String effect) {
  public static final String EQUAL = "Equal";

  public static final String EXISTS = "Exists";

  public static final List<String> OPERATORS = List.of(EQUAL, EXISTS);

  public Toleration {
    key = key == null ? "" : key;
    operator = operator == null ? EQUAL : operator;
    value = value == null ? "" : value;
    effect = effect == null || effect.isEmpty() ? null : effect;
  }

  /**
   * As {@link #toString} writes it: {@code key=value[:Effect]} tolerates that taint, {@code
   * key[:Effect]} the key's taint whatever its value, {@code *[:Effect]} every taint.
   */
  public static Toleration parse(String written) {
    int colon = written.lastIndexOf(':');
    String what = colon < 0 ? written : written.substring(0, colon);
    String effect = colon < 0 ? null : written.substring(colon + 1);
    int eq = what.indexOf('=');
    if (eq >= 0) {
      return new Toleration(what.substring(0, eq), EQUAL, what.substring(eq + 1), effect);
    }
    return new Toleration(what.equals("*") ? "" : what, EXISTS, null, effect);
  }

  /** Whether it tolerates {@code taint}. */
  public boolean tolerates(Taint taint) {
    if (effect != null && !effect.equals(taint.effect())) {
      return false;
    }
    if (operator.equals(EXISTS)) {
      return key.isEmpty() || key.equals(taint.key());
    }
    return key.equals(taint.key()) && value.equals(taint.value());
  }

  /** Whether any of {@code tolerations} tolerates {@code taint}. */
  public static boolean tolerated(List<Toleration> tolerations, Taint taint) {
    for (Toleration t : tolerations) {
      if (t.tolerates(taint)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Of a worker's {@code taints} ({@link Taint#of} its labels), those of effect {@code effect} that
   * none of {@code tolerations} tolerates.
   */
  public static List<Taint> untolerated(
      List<Toleration> tolerations, List<Taint> taints, String effect) {
    if (taints.isEmpty()) {
      return taints;
    }
    return taints.stream()
        .filter(t -> t.effect().equals(effect) && !tolerated(tolerations, t))
        .toList();
  }

  /** What is wrong with it, naming the part ({@code key}, {@code operator}, ...), or empty. */
  public Optional<Problem> problem() {
    if (!OPERATORS.contains(operator)) {
      return Optional.of(new Problem("operator", "must be " + String.join(" or ", OPERATORS)));
    }
    if (effect != null && !Taint.EFFECTS.contains(effect)) {
      return Optional.of(
          new Problem(
              "effect", "must be " + String.join(" or ", Taint.EFFECTS) + ", or none for both"));
    }
    if (operator.equals(EXISTS) && !value.isEmpty()) {
      return Optional.of(new Problem("value", "takes none with Exists"));
    }
    if (operator.equals(EQUAL) && key.isEmpty()) {
      return Optional.of(new Problem("key", "is needed with Equal (only Exists may leave it out)"));
    }
    if (!key.isEmpty() && !key.matches(Taint.KEY)) {
      return Optional.of(new Problem("key", "must be a label's name"));
    }
    if (!value.matches(Taint.VALUE)) {
      return Optional.of(new Problem("value", "must be a label's value"));
    }
    return Optional.empty();
  }

  /** What is wrong with one part of a toleration. */
  public record Problem(String part, String message) {}

  /**
   * As {@code rota vm create --toleration} takes it: {@code dedicated=gpu:NoSchedule} ({@code
   * Equal}), {@code spot} or {@code spot:PreferNoSchedule} ({@code Exists}), {@code *} (every
   * taint).
   */
  @Override
  public String toString() {
    String what = operator.equals(EXISTS) ? (key.isEmpty() ? "*" : key) : key + "=" + value;
    return what + (effect == null ? "" : ":" + effect);
  }
}
