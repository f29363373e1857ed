package dev.rota.api.workers;

import dev.rota.api.Rfc3339;
import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code POST /v1/workers/{name}/drain}'s body, optional: when what is still on the worker is
 * stopped (or, with a restart policy, started elsewhere). A deadline already passed evicts at once
 * (Nomad's {@code -force}).
 */
@Serdeable
public record DrainRequest(
    @Nullable
        @io.swagger.v3.oas.annotations.media.Schema(format = "date-time", pattern = Rfc3339.PATTERN)
        String deadline) {
  /** Nomad's default deadline. */
  static final Duration DEFAULT_DEADLINE = Duration.ofHours(1);

  Instant deadlineFrom(Instant now) {
    if (deadline == null) {
      return now.plus(DEFAULT_DEADLINE);
    }
    return Rfc3339.parse(deadline)
        .orElseThrow(
            () ->
                Problems.badRequest(
                    "deadline",
                    "must be an RFC 3339 time such as 2026-11-23T18:00:00Z, got " + deadline));
  }
}
