package dev.rota.core.scheduling;

import dev.rota.agentapi.TaskId;
import dev.rota.core.model.TaskState;

/**
 * A task the scheduler placed, and its state as last observed. It belongs to one submission of a VM
 * ({@code vmSeq}: a VM deleted and submitted again under its name is another) and one generation.
 * Its id on the agent is {@code taskName.generation}: the VM's name but for a VM claimed from a
 * pool, whose tasks carry the replica's.
 */
public record PlacedTask(
    String vm, long vmSeq, int generation, String worker, TaskState state, String taskName) {
  public PlacedTask {
    taskName = taskName == null ? vm : taskName;
  }

  public PlacedTask(String vm, long vmSeq, int generation, String worker, TaskState state) {
    this(vm, vmSeq, generation, worker, state, vm);
  }

  public String taskId() {
    return TaskId.of(taskName, generation).toString();
  }

  /**
   * Whether this is the task {@code v} wants now: its submission, its generation, and it wants one.
   */
  public boolean wantedBy(VmSnapshot v) {
    return v != null && v.seq() == vmSeq && v.restartCount() == generation && v.wantsTask();
  }

  /**
   * Whether this is the task a moving {@code v} still runs on until its new copy starts: the
   * generation before its current one, on the worker it moves from.
   */
  public boolean keptBy(VmSnapshot v) {
    return v != null
        && v.moving()
        && v.seq() == vmSeq
        && v.restartCount() - 1 == generation
        && worker.equals(v.movingFrom());
  }

  public PlacedTask withState(TaskState newState) {
    return new PlacedTask(vm, vmSeq, generation, worker, newState, taskName);
  }
}
