package dev.rota.api.workers;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * {@code PUT /v1/workers/{name}/tasks}: an agent reporting tasks whose state changed, each as its
 * {@code GET /v1/tasks} lists it.
 */
@Serdeable
public record TaskReportRequest(
    @NotNull @Size(max = 1000) List<@NotNull @Valid ReportedTask> tasks) {
  @Serdeable
  public record ReportedTask(
      @NotNull @Size(max = 128) String id,
      @Nullable @Size(max = 63) String vm,
      @NotNull
          @Pattern(
              regexp = "^(starting|running|exited|failed)$",
              message = "must be starting, running, exited or failed")
          String state,
      @Nullable Integer exitCode,
      @Nullable @Size(max = 64) String startedAt,
      @Nullable @Size(max = 64) String finishedAt,
      @Nullable @Size(max = 4096) String message,
      // The worker's port for each named port; the scheduler's probe of the agent records them.
      @Nullable @Size(max = 16)
          java.util.Map<@NotNull @Size(max = 15) String, @NotNull Integer> ports,
      // The VM's submission its spec named: a task of a VM deleted since is not the new VM's.
      @Nullable Long submission,
      // Whether its readiness check passes (null: it has none), since when, and if not, why.
      @Nullable Boolean ready,
      @Nullable @Size(max = 64) String readySince,
      @Nullable @Size(max = 4096) String readiness) {

    /** What its readiness check says; null when it has none. */
    dev.rota.core.scheduling.ObservedTask.Readiness said() {
      if (ready == null) {
        return null;
      }
      java.time.Instant since = null;
      if (Boolean.TRUE.equals(ready)) {
        try {
          since =
              readySince == null ? java.time.Instant.EPOCH : java.time.Instant.parse(readySince);
        } catch (java.time.format.DateTimeParseException e) {
          throw dev.rota.api.problem.Problems.badRequest(
              "tasks[].readySince", "must be an RFC 3339 time, got \"" + readySince + "\"");
        }
      }
      return new dev.rota.core.scheduling.ObservedTask.Readiness(since, readiness);
    }
  }
}
