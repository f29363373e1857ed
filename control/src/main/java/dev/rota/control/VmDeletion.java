package dev.rota.control;

import dev.rota.store.VmRow;
import jakarta.inject.Singleton;

/**
 * Hands a VM's deletion to its workflow, whoever asks (a user's {@code DELETE}, a set's
 * scale-down): to its open run; to its first run, started now if it was owed one; else to a run
 * begun with the delete (its last run ended with it, or Temporal lost it). The run removes the task
 * before the rows.
 */
@Singleton
public class VmDeletion {
  private final ControlWorkflows workflows;
  private final VmWorkflowStarter starter;

  public VmDeletion(ControlWorkflows workflows, VmWorkflowStarter starter) {
    this.workflows = workflows;
    this.starter = starter;
  }

  public void delete(VmRow vm) {
    if (workflows.requestVmDelete(vm.name())) {
      return;
    }
    starter.startIfOwed(vm.name());
    if (!workflows.requestVmDelete(vm.name())) {
      workflows.deleteVm(vm);
    }
  }
}
