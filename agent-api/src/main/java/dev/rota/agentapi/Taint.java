package dev.rota.agentapi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A mark on a worker that keeps VMs off it unless they tolerate it (Kubernetes' taints): {@code
 * NoSchedule} keeps every VM that does not tolerate it away, {@code PreferNoSchedule} lets such a
 * VM on only when no other worker has room. An agent declares its worker's taints ({@code
 * ROTA_WORKER_TAINTS=dedicated=gpu:NoSchedule}); each travels as a label under {@link #PREFIX}
 * ({@code taint.rota.dev/dedicated=gpu:NoSchedule}), so that a worker registers, and is read, as
 * before, and one key has one taint.
 *
 * @param value what the key is set to; empty for none
 * @param effect {@link #NO_SCHEDULE} or {@link #PREFER_NO_SCHEDULE}
 */
public record Taint(String key, String value, String effect) {
  public static final String NO_SCHEDULE = "NoSchedule";

  public static final String PREFER_NO_SCHEDULE = "PreferNoSchedule";

  public static final List<String> EFFECTS = List.of(NO_SCHEDULE, PREFER_NO_SCHEDULE);

  /** The prefix of the labels that carry a worker's taints. */
  public static final String PREFIX = "taint.rota.dev/";

  /** A taint's key: a label's name. */
  public static final String KEY = "^[A-Za-z0-9]([A-Za-z0-9._/-]{0,61}[A-Za-z0-9])?$";

  /** A taint's value: empty, or a label's value. */
  public static final String VALUE = "^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$";

  public Taint {
    value = value == null ? "" : value;
  }

  /**
   * {@code key=value:Effect} or {@code key:Effect}.
   *
   * @throws IllegalArgumentException saying what is wrong, when it is neither
   */
  public static Taint parse(String written) {
    int colon = written.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          "\"" + written + "\" is no taint: write key=value:Effect or key:Effect");
    }
    String effect = written.substring(colon + 1);
    String keyValue = written.substring(0, colon);
    int eq = keyValue.indexOf('=');
    Taint t =
        eq < 0
            ? new Taint(keyValue, "", effect)
            : new Taint(keyValue.substring(0, eq), keyValue.substring(eq + 1), effect);
    t.problem()
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("\"" + written + "\" is no taint: " + p);
            });
    return t;
  }

  /** What is wrong with it, or empty when nothing is. */
  public Optional<String> problem() {
    if (!key.matches(KEY)) {
      return Optional.of("its key must be a label's name");
    }
    if (!value.matches(VALUE)) {
      return Optional.of("its value must be a label's value");
    }
    if (!EFFECTS.contains(effect)) {
      return Optional.of("its effect must be " + String.join(" or ", EFFECTS));
    }
    return Optional.empty();
  }

  /** The label it travels as. */
  public String label() {
    return PREFIX + key;
  }

  /** The label's value: {@code value:Effect}. */
  public String labelValue() {
    return value + ":" + effect;
  }

  /**
   * The taints a worker's labels carry, by key; a label under the prefix that is none is left out.
   */
  public static List<Taint> of(Map<String, String> labels) {
    List<Taint> taints = null;
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (e.getKey().startsWith(PREFIX)) {
        String v = e.getValue();
        int colon = v.lastIndexOf(':');
        if (colon >= 0) {
          if (taints == null) {
            taints = new ArrayList<>();
          }
          taints.add(
              new Taint(
                  e.getKey().substring(PREFIX.length()),
                  v.substring(0, colon),
                  v.substring(colon + 1)));
        }
      }
    }
    if (taints == null) {
      return List.of();
    }
    taints.sort(java.util.Comparator.comparing(Taint::key));
    return taints;
  }

  /** As a person writes it: {@code dedicated=gpu:NoSchedule}, {@code spot:PreferNoSchedule}. */
  @Override
  public String toString() {
    return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
  }
}
