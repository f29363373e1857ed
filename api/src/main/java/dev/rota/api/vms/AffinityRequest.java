package dev.rota.api.vms;

import dev.rota.api.Limits;
import dev.rota.core.model.Affinity;
import dev.rota.core.model.LabelConstraint;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * A preference for workers whose labels meet a rule ({@link Affinity}): {@code {"label": "zone",
 * "operator": "=", "values": ["a"], "weight": 50}}, the rule as a constraint's, the weight from
 * -100 (avoid) to 100 (prefer), not 0. A VM's view shows each in this form, {@code values} always
 * present.
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonInclude(
    com.fasterxml.jackson.annotation.JsonInclude.Include.ALWAYS)
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record AffinityRequest(
    @NotNull @Pattern(regexp = Limits.LABEL_KEY, message = Limits.LABEL_MESSAGE) String label,
    @NotNull @Pattern(regexp = ConstraintRequest.OPERATOR, message = ConstraintRequest.OPERATORS)
        String operator,
    @Nullable @Size(max = 32) List<@NotNull @Size(max = 253) String> values,
    @NotNull @Min(Affinity.MIN_WEIGHT) @Max(Affinity.MAX_WEIGHT) Integer weight) {

  Affinity affinity() {
    return new Affinity(label, operator, values, weight);
  }

  /** A stored affinity as a VM's view shows it. */
  static AffinityRequest of(Affinity a) {
    LabelConstraint rule = a.rule();
    return new AffinityRequest(rule.label(), rule.operator(), rule.values(), a.weight());
  }
}
