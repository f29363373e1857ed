package dev.rota.api.vms;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Pattern;

/**
 * A VM's leave to go to workers with a taint ({@link dev.rota.agentapi.Toleration}): {@code {"key":
 * "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}}; {@code operator}
 * {@code Exists} tolerates the key's taint whatever its value, and with no key every taint; no
 * {@code effect} tolerates either effect.
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record TolerationRequest(
    @Nullable @Pattern(regexp = KEY, message = "must be a label's name") String key,
    @Nullable @Pattern(regexp = "^(Equal|Exists)$", message = "must be \"Equal\" or \"Exists\"")
        String operator,
    @Nullable @Pattern(regexp = dev.rota.agentapi.Taint.VALUE, message = "must be a label's value")
        String value,
    @Nullable
        @Pattern(
            regexp = "^(NoSchedule|PreferNoSchedule)$",
            message = "must be \"NoSchedule\" or \"PreferNoSchedule\", or left out for both")
        String effect) {
  /** A taint's key, or empty: {@code Exists} without one tolerates every taint. */
  static final String KEY = "^$|" + dev.rota.agentapi.Taint.KEY;

  dev.rota.agentapi.Toleration toleration() {
    return new dev.rota.agentapi.Toleration(key, operator, value, effect);
  }

  /** A stored toleration as a VM's view shows it. */
  static TolerationRequest of(dev.rota.agentapi.Toleration t) {
    return new TolerationRequest(
        t.key().isEmpty() ? null : t.key(),
        t.operator(),
        t.value().isEmpty() ? null : t.value(),
        t.effect());
  }
}
