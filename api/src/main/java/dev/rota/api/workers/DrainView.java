package dev.rota.api.workers;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.store.WorkerRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * A worker's drain under way or done.
 *
 * @param state {@code draining} while VMs are left on it, {@code drained} once none is
 * @param progress the scheduler's last word on what is left and why (moving, waiting for room,
 *     stopped at the deadline); null until its first term since the drain began
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record DrainView(
    Instant deadline, Instant startedAt, String state, @Nullable String progress) {
  static @Nullable DrainView of(WorkerRow row, int vmCount) {
    if (row.drainDeadline() == null) {
      return null;
    }
    return new DrainView(
        row.drainDeadline(),
        row.drainStartedAt(),
        vmCount == 0 ? "drained" : "draining",
        row.drainProgress());
  }
}
