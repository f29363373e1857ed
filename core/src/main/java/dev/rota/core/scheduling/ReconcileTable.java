package dev.rota.core.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reconciliation as a table, in the manner of {@link HealthTable}: a cell is what a term knows
 * about one task (whether its VM wants it, the scheduler's record of it, what its agent says); the
 * first row that matches gives the action. {@code null} in a row matches anything. {@code
 * ReconcileTableTest} checks that every cell has a row and every row decides some cell.
 */
public final class ReconcileTable {
  /** Whether the task is the one its VM wants now. */
  public enum Want {
    /** Its VM's current submission and generation, and its workflow wants a task running. */
    WANTED,
    /** The previous task of a VM that is moving: it runs until the new copy has started. */
    KEPT,
    /** Its VM is gone, stopped, failed or at a later generation, or nobody placed it there. */
    UNWANTED
  }

  /** The scheduler's record of the task. */
  public enum Record {
    SCHEDULED,
    RUNNING,
    /** Exited, failed, vanished or lost: recorded and told once. */
    ENDED,
    /** No record: nobody placed this task on this worker. */
    NONE
  }

  /** What the term heard of the task from its agent. */
  public enum Seen {
    /** Listed, not running yet. */
    STARTING,
    RUNNING,
    /** Listed as exited or failed. */
    ENDED,
    /** Its agent answered and did not list it. */
    ABSENT,
    /** Its worker is offline or removed: nobody will list it again. */
    SILENT,
    /** Its agent did not answer this term: nothing is known. */
    UNKNOWN
  }

  public enum Action {
    NOTHING,
    /** Remove the task from the agent. */
    REMOVE,
    /** Forget the record: the task is gone and nobody wants it. */
    FORGET,
    /** The task started: record it and tell the VM's workflow. */
    STARTED,
    /** The task ended as its agent says (exit code, or why it failed). */
    ENDED,
    /** A running task gone without its agent saying how. */
    VANISHED,
    /** A live task gone with its worker. */
    LOST
  }

  public record Cell(Want want, Record record, Seen seen) {}

  /** One rule: where it applies, the action, and why. */
  public record Row(Want want, Record record, Seen seen, Action action, String why) {
    boolean matches(Cell c) {
      return (want == null || want == c.want())
          && (record == null || record == c.record())
          && (seen == null || seen == c.seen());
    }
  }

  private static Row row(Want want, Record record, Seen seen, Action action, String why) {
    return new Row(want, record, seen, action, why);
  }

  private static final Want ANY_WANT = null;
  private static final Record ANY_RECORD = null;
  private static final Seen ANY_SEEN = null;

  public static final List<Row> ROWS =
      List.of(
          //  want             record            seen              action
          row(ANY_WANT, ANY_RECORD, Seen.UNKNOWN, Action.NOTHING, "its agent did not answer"),
          row(ANY_WANT, Record.NONE, Seen.ABSENT, Action.NOTHING, "neither placed nor there"),
          row(ANY_WANT, Record.NONE, Seen.SILENT, Action.NOTHING, "neither placed nor there"),
          row(ANY_WANT, Record.NONE, ANY_SEEN, Action.REMOVE, "nobody placed it there"),
          row(Want.KEPT, ANY_RECORD, Seen.ABSENT, Action.FORGET, "a moving VM's old copy, gone"),
          row(
              Want.KEPT,
              ANY_RECORD,
              Seen.SILENT,
              Action.FORGET,
              "a moving VM's old copy, gone with its worker"),
          row(
              Want.KEPT,
              ANY_RECORD,
              Seen.ENDED,
              Action.REMOVE,
              "a moving VM's old copy ended: nothing to keep"),
          row(
              Want.KEPT,
              ANY_RECORD,
              ANY_SEEN,
              Action.NOTHING,
              "a moving VM's old copy runs until the new one has started"),
          row(Want.UNWANTED, ANY_RECORD, Seen.ABSENT, Action.FORGET, "gone, and nobody wants it"),
          row(
              Want.UNWANTED,
              ANY_RECORD,
              Seen.SILENT,
              Action.FORGET,
              "gone with its worker, and nobody wants it"),
          row(Want.UNWANTED, ANY_RECORD, ANY_SEEN, Action.REMOVE, "its VM no longer wants it"),
          row(
              Want.WANTED,
              Record.ENDED,
              ANY_SEEN,
              Action.NOTHING,
              "its end is recorded and told; its workflow decides what next"),
          row(Want.WANTED, ANY_RECORD, Seen.SILENT, Action.LOST, "its worker went offline"),
          row(Want.WANTED, ANY_RECORD, Seen.ENDED, Action.ENDED, "its agent says it ended"),
          row(
              Want.WANTED,
              Record.SCHEDULED,
              Seen.RUNNING,
              Action.STARTED,
              "its agent says it runs"),
          row(Want.WANTED, Record.SCHEDULED, ANY_SEEN, Action.NOTHING, "its start is under way"),
          row(
              Want.WANTED,
              Record.RUNNING,
              Seen.ABSENT,
              Action.VANISHED,
              "gone from its agent without an end"),
          row(Want.WANTED, Record.RUNNING, ANY_SEEN, Action.NOTHING, "running, as recorded"));

  private ReconcileTable() {}

  public static Optional<Row> lookup(Cell cell) {
    return ROWS.stream().filter(r -> r.matches(cell)).findFirst();
  }

  /** The action for {@code cell}; every cell has one ({@code ReconcileTableTest}). */
  public static Row decide(Cell cell) {
    return lookup(cell)
        .orElseThrow(() -> new IllegalStateException("no reconciliation rule for " + cell));
  }

  /** Every cell there is, for the test that each has a row. */
  public static List<Cell> allCells() {
    List<Cell> cells = new ArrayList<>();
    for (Want want : Want.values()) {
      for (Record record : Record.values()) {
        for (Seen seen : Seen.values()) {
          cells.add(new Cell(want, record, seen));
        }
      }
    }
    return cells;
  }
}
