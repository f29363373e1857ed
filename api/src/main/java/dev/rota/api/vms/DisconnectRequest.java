package dev.rota.api.vms;

import dev.rota.agentapi.Disconnect;
import dev.rota.api.Durations;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Pattern;

/**
 * A VM's {@code disconnect}: whether it is placed elsewhere once its worker is offline ({@code
 * replace}, true by default) and, when it is not, how long its agent keeps it running while cut
 * off.
 */
@Serdeable
// A misspelt field here would be a VM failed over, or kept, against the user's word: refused, not
// ignored.
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record DisconnectRequest(
    @Nullable Boolean replace,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE) String stopAfter) {

  /**
   * As stored and sent to agents; null for the default, so that a VM that says nothing differs from
   * none.
   */
  Disconnect policy(String field) {
    boolean replaced = replace == null || replace;
    if (replaced && stopAfter != null) {
      throw dev.rota.api.problem.Problems.badRequest(
          field + "disconnect.stopAfter",
          "applies only with \"replace\": false; a VM that is replaced is stopped at the cluster's fence, before its new copy starts");
    }
    return replaced
        ? null
        : new Disconnect(
            false,
            stopAfter == null
                ? null
                : Durations.seconds(field + "disconnect.stopAfter", stopAfter, false));
  }
}
