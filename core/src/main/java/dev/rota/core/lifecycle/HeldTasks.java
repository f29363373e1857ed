package dev.rota.core.lifecycle;

import dev.rota.agentapi.TaskId;
import dev.rota.core.model.VmStatus;
import java.util.ArrayList;
import java.util.List;

/** The tasks a VM may have on workers, which a stop, a restart or a delete removes. */
public final class HeldTasks {
  private HeldTasks() {}

  /** A task of the VM's on a worker. */
  public record Held(String worker, String taskId) {}

  /**
   * Its current task, if its status says it may have one; while it moves, the old copy as well as
   * the new one once placed.
   */
  public static List<Held> of(
      String vm,
      int restartCount,
      VmStatus status,
      String worker,
      String movingFrom,
      String movingTo) {
    List<Held> held = new ArrayList<>();
    if (movingFrom != null) {
      if (movingTo != null) {
        held.add(new Held(movingTo, taskId(vm, restartCount)));
      }
      held.add(new Held(movingFrom, taskId(vm, restartCount - 1)));
    } else if (mayHaveTask(status, worker)) {
      held.add(new Held(worker, taskId(vm, restartCount)));
    }
    return held;
  }

  /** Whether a VM in {@code status} on {@code worker} may have a task there. */
  public static boolean mayHaveTask(VmStatus status, String worker) {
    return worker != null && VmStatus.HOLDING_WORKER.contains(status.wireName());
  }

  private static String taskId(String vm, int generation) {
    return TaskId.of(vm, generation).toString();
  }
}
