package dev.rota.scheduling;

import java.util.List;

/**
 * Expected against actual: tasks to remove from agents, VMs whose task is gone, and task states the
 * VMs' records have not caught up with.
 */
public record Reconciliation(List<TaskRemoval> removals, List<VmFailure> failures, List<TaskUpdate> updates) {
  /** A task no VM owns on that worker, or of an old restart generation. */
  public record TaskRemoval(String worker, String taskId, String why) {}

  /** A VM that failed without its task saying so: vanished, or its worker went offline. */
  public record VmFailure(String vm, String worker, String reason) {}

  /** A task that started or ended, for its VM. */
  public record TaskUpdate(String vm, String worker, ObservedTask task) {}
}
