package dev.rota.core.scheduling;

import dev.rota.core.model.TaskState;
import java.util.List;

/**
 * Expected against actual: tasks to remove from agents, tasks whose observed state changed, task
 * records nobody needs any more, and the moves whose old copy is gone with them.
 */
public record Reconciliation(
    List<TaskRemoval> removals,
    List<TaskTransition> transitions,
    List<PlacedTask> forgotten,
    List<MoveEnded> movesEnded) {
  public Reconciliation(
      List<TaskRemoval> removals, List<TaskTransition> transitions, List<PlacedTask> forgotten) {
    this(removals, transitions, forgotten, List.of());
  }

  /** A move is over: its new copy runs, and its old copy on {@code from} is gone. */
  public record MoveEnded(String vm, long seq, String from) {}

  /**
   * A task no VM wants on that worker: unknown, of an old generation, or of a VM stopped or gone.
   *
   * @param submission the submission the task is of, as its agent said, for the removal to name;
   *     null when it did not say
   * @param vmGone the VM it ran for is deleted (or submitted again since): nobody will read its
   *     logs, so its agent need not keep them
   */
  public record TaskRemoval(
      String worker, String taskId, String why, Long submission, boolean vmGone) {}

  /**
   * A task reached a new state: started, ended (with its exit code, or why), vanished, or lost with
   * its worker. The VM's workflow hears of it and decides what it means for the VM.
   */
  public record TaskTransition(PlacedTask task, TaskState to, Integer exitCode, String message) {}
}
