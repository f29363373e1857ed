package dev.rota.api.schedules;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Durations;
import dev.rota.api.Named;
import dev.rota.control.ScheduleDefinition;
import dev.rota.control.ScheduleSnapshot;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A schedule as shown: as it was given, who made it and when, its next times, its recent runs (each
 * with its VM) and the VMs of the runs still going.
 *
 * @param runs how many runs it has made
 * @param skipped how many runs its overlap policy skipped
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record ScheduleView(
    String name,
    String template,
    Map<String, Object> parameters,
    @Nullable String cron,
    @Nullable String interval,
    @Nullable String timeZone,
    @Nullable String jitter,
    String overlap,
    boolean paused,
    @Nullable String note,
    @Nullable String createdBy,
    @Nullable Instant createdAt,
    @Nullable Instant updatedAt,
    List<Instant> nextRuns,
    List<Run> recentRuns,
    List<String> runningVms,
    long runs,
    long skipped)
    implements Named {

  /** One run: when it was due, when it began, its VM. */
  @Serdeable
  public record Run(Instant scheduledAt, @Nullable Instant startedAt, @Nullable String vm) {}

  static ScheduleView of(ScheduleSnapshot s) {
    ScheduleDefinition d = s.definition();
    return new ScheduleView(
        d.name(),
        d.run().template(),
        d.run().parameters(),
        d.cron(),
        duration(d.interval()),
        d.timeZone(),
        duration(d.jitter()),
        d.overlap().word(),
        d.paused(),
        d.note(),
        s.createdBy(),
        s.createdAt(),
        s.updatedAt(),
        s.nextRuns(),
        s.recentRuns().stream().map(r -> new Run(r.scheduledAt(), r.startedAt(), r.vm())).toList(),
        s.runningVms(),
        s.runs(),
        s.skipped());
  }

  private static String duration(Duration d) {
    return d == null ? null : Durations.of((int) d.toSeconds());
  }
}
