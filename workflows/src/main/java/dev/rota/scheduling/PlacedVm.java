package dev.rota.scheduling;

import dev.rota.workflows.model.VmStatus;

/** A VM the store says is on a worker. */
public record PlacedVm(String name, VmStatus status, String worker, int restartCount) {
  public String taskId() {
    return TaskId.of(name, restartCount).toString();
  }
}
