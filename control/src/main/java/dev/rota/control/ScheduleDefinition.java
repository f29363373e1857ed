package dev.rota.control;

import dev.rota.workflows.schedule.ScheduledRun;
import java.time.Duration;

/**
 * A schedule as a user gives it: what each run makes ({@code run}), when (a cron expression or an
 * interval, in a time zone, each time moved by up to {@code jitter}), and what a run due while the
 * last one's VM still runs does ({@code overlap}).
 *
 * @param cron five fields (minute, hour, day of month, month, day of week) or {@code @daily} and
 *     its kin; null with an interval
 * @param interval null with a cron expression
 * @param timeZone an IANA zone the cron expression is read in
 * @param note why it is paused, when it is
 */
public record ScheduleDefinition(
    String name,
    ScheduledRun run,
    String cron,
    Duration interval,
    String timeZone,
    Duration jitter,
    ScheduleOverlap overlap,
    boolean paused,
    String note) {}
