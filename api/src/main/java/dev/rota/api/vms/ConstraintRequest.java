package dev.rota.api.vms;

import dev.rota.api.Limits;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * A rule on the labels of the worker a VM goes to ({@link dev.rota.core.model.LabelConstraint}):
 * {@code {"label": "zone", "operator": "in", "values": ["a", "b"]}}. A VM's view shows each in this
 * form, {@code values} always present (empty for {@code exists}).
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonInclude(
    com.fasterxml.jackson.annotation.JsonInclude.Include.ALWAYS)
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record ConstraintRequest(
    @NotNull @Pattern(regexp = Limits.LABEL_KEY, message = Limits.LABEL_MESSAGE) String label,
    @NotNull @Pattern(regexp = OPERATOR, message = OPERATORS) String operator,
    @Nullable @Size(max = 32) List<@NotNull @Size(max = 253) String> values) {

  /** The operators a constraint, or an affinity, takes. */
  static final String OPERATOR = "^(=|!=|in|notIn|exists|notExists|regexp|version)$";

  static final String OPERATORS =
      "must be one of \"=\", \"!=\", \"in\", \"notIn\", \"exists\", \"notExists\","
          + " \"regexp\", \"version\"";

  /** A stored constraint as a VM's view shows it. */
  static ConstraintRequest of(dev.rota.core.model.LabelConstraint c) {
    return new ConstraintRequest(c.label(), c.operator(), c.values());
  }
}
