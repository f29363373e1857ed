package dev.rota.core.scheduling;

import static dev.rota.core.model.WorkerHealth.FLAKY;
import static dev.rota.core.model.WorkerHealth.LOST;
import static dev.rota.core.model.WorkerHealth.NOT_READY;
import static dev.rota.core.model.WorkerHealth.OFFLINE;
import static dev.rota.core.model.WorkerHealth.READY;

import dev.rota.core.model.WorkerHealth;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Worker health as a table, in the manner of Orchard's reconciliation table: a cell is what the
 * term knows about a worker; the first row that matches it gives the next health. {@code null} in a
 * row matches anything. {@code HealthTableTest} checks that every cell has a row.
 */
public final class HealthTable {
  /** How old the last heartbeat is. */
  public enum Heartbeat {
    /** Younger than {@code lost-after}. */
    FRESH,
    /** Older than {@code lost-after}, younger than {@code lost-after + offline-after}. */
    STALE,
    /** Older than {@code lost-after + offline-after}. */
    GONE,
    /**
     * After a control-plane outage: nothing heard since the scheduler came back, less than {@code
     * lost-after} ago, and silent before it. Neither a heartbeat nor a successful probe since the
     * return (either is a sign of life, and makes it {@code FRESH}): the worker's health stays as
     * it was, neither worse for a silence the outage imposed nor better without a word.
     */
    QUIET
  }

  /** What the latest readiness probe of the agent said. */
  public enum Probe {
    ANSWERED,
    /** Failed, fewer times in a row than {@code flakyAfterErrors}. */
    FAILING,
    /** Failed {@code flakyAfterErrors} times in a row or more. */
    FAILING_REPEATEDLY,
    /**
     * Answered, but {@code flakyAfterTaskFailures} tasks or more failed on it lately (Scoot's flaky
     * node).
     */
    TASKS_FAILING,
    /** Never probed yet. */
    NOT_PROBED
  }

  /** Whether a flaky worker's cool-down is still running. */
  public enum Cooldown {
    ACTIVE,
    NONE
  }

  public record Cell(WorkerHealth previous, Heartbeat heartbeat, Probe probe, Cooldown cooldown) {}

  /**
   * One rule: where it applies, the health it gives, and why, as the worker's health message says.
   */
  public record Row(
      Set<WorkerHealth> previous,
      Heartbeat heartbeat,
      Probe probe,
      Cooldown cooldown,
      WorkerHealth next,
      String why) {
    boolean matches(Cell c) {
      return (previous == null || previous.contains(c.previous()))
          && (heartbeat == null || heartbeat == c.heartbeat())
          && (probe == null || probe == c.probe())
          && (cooldown == null || cooldown == c.cooldown());
    }
  }

  private static Row row(
      Set<WorkerHealth> previous,
      Heartbeat heartbeat,
      Probe probe,
      Cooldown cooldown,
      WorkerHealth next,
      String why) {
    return new Row(previous, heartbeat, probe, cooldown, next, why);
  }

  private static final Set<WorkerHealth> ANY = null;

  public static final List<Row> ROWS =
      List.of(
          //  previous health                  heartbeat        probe
          // cool-down        next
          row(
              ANY,
              Heartbeat.GONE,
              null,
              null,
              OFFLINE,
              "no heartbeat for lost-after + offline-after"),
          row(ANY, Heartbeat.STALE, null, null, LOST, "no heartbeat for lost-after"),
          row(EnumSet.of(LOST, OFFLINE), Heartbeat.FRESH, null, null, READY, "heartbeat came back"),
          row(
              EnumSet.of(LOST),
              Heartbeat.QUIET,
              null,
              null,
              LOST,
              "silent before the scheduler came back, and not heard from since"),
          row(
              EnumSet.of(OFFLINE),
              Heartbeat.QUIET,
              null,
              null,
              OFFLINE,
              "silent before the scheduler came back, and not heard from since"),
          row(
              EnumSet.of(READY),
              Heartbeat.QUIET,
              null,
              null,
              READY,
              "not heard from since the scheduler came back, a moment ago"),
          row(
              EnumSet.of(NOT_READY),
              Heartbeat.QUIET,
              null,
              null,
              NOT_READY,
              "waiting for the agent's readiness probe"),
          row(
              EnumSet.of(FLAKY),
              Heartbeat.QUIET,
              null,
              null,
              FLAKY,
              "agent errors; not heard from since the scheduler came back"),
          row(
              ANY,
              Heartbeat.FRESH,
              null,
              Cooldown.ACTIVE,
              FLAKY,
              "agent errors; cooling down before the next probe"),
          row(
              EnumSet.of(FLAKY),
              Heartbeat.FRESH,
              Probe.ANSWERED,
              Cooldown.NONE,
              READY,
              "agent answered again after the cool-down"),
          row(
              EnumSet.of(FLAKY),
              Heartbeat.FRESH,
              null,
              Cooldown.NONE,
              FLAKY,
              "agent still failing after the cool-down"),
          row(
              EnumSet.of(READY),
              Heartbeat.FRESH,
              Probe.FAILING_REPEATEDLY,
              Cooldown.NONE,
              FLAKY,
              "agent failed repeatedly"),
          row(
              EnumSet.of(READY, NOT_READY),
              Heartbeat.FRESH,
              Probe.TASKS_FAILING,
              Cooldown.NONE,
              FLAKY,
              "tasks failed on it repeatedly"),
          row(EnumSet.of(READY), Heartbeat.FRESH, null, Cooldown.NONE, READY, "agent answering"),
          row(
              EnumSet.of(NOT_READY),
              Heartbeat.FRESH,
              Probe.ANSWERED,
              Cooldown.NONE,
              READY,
              "agent answered its readiness probe"),
          row(
              EnumSet.of(NOT_READY),
              Heartbeat.FRESH,
              null,
              Cooldown.NONE,
              NOT_READY,
              "waiting for the agent's readiness probe"));

  private HealthTable() {}

  public static Optional<Row> lookup(Cell cell) {
    return ROWS.stream().filter(r -> r.matches(cell)).findFirst();
  }

  /** Every cell there is, for the test that each has a row. */
  public static List<Cell> allCells() {
    List<Cell> cells = new ArrayList<>();
    for (WorkerHealth previous : WorkerHealth.values()) {
      for (Heartbeat heartbeat : Heartbeat.values()) {
        for (Probe probe : Probe.values()) {
          for (Cooldown cooldown : Cooldown.values()) {
            cells.add(new Cell(previous, heartbeat, probe, cooldown));
          }
        }
      }
    }
    return cells;
  }
}
