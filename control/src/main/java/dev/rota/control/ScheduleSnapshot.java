package dev.rota.control;

import java.time.Instant;
import java.util.List;

/**
 * A schedule as Temporal keeps it: its definition, who made it and when, its next times, its recent
 * runs and the VMs of the runs still going.
 *
 * @param runs how many runs it has made
 * @param skipped how many runs the overlap policy skipped
 */
public record ScheduleSnapshot(
    ScheduleDefinition definition,
    String createdBy,
    Instant createdAt,
    Instant updatedAt,
    List<Instant> nextRuns,
    List<Run> recentRuns,
    List<String> runningVms,
    long runs,
    long skipped) {

  /** One run: when it was due, when it began, the VM it makes. */
  public record Run(Instant scheduledAt, Instant startedAt, String vm) {}
}
