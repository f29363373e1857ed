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
 *     stopped at the deadline), null until its first term since the drain began; {@code drained: no
 *     VMs left} once none is
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record DrainView(
    Instant deadline, Instant startedAt, String state, @Nullable String progress) {
  static final String NOTHING_LEFT = "drained: no VMs left";

  static @Nullable DrainView of(WorkerRow row, int vmCount) {
    if (row.drainDeadline() == null) {
      return null;
    }
    // With nothing left, the scheduler's last line (written when a VM was still there, and not
    // again until a term has cause to run) is stale: the count says it all.
    return new DrainView(
        row.drainDeadline(),
        row.drainStartedAt(),
        vmCount == 0 ? "drained" : "draining",
        vmCount == 0 ? NOTHING_LEFT : row.drainProgress());
  }
}
