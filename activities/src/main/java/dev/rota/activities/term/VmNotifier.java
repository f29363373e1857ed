package dev.rota.activities.term;

import dev.rota.store.Columns;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.workflows.vm.VmObservation;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;

/** Tells a VM's workflow what the scheduler committed about it. */
@Singleton
public class VmNotifier {
  private final Provider<WorkflowClient> client;
  private final VmRepository vms;

  /** The client is looked up on first use: the Temporal worker that runs these activities needs it too. */
  public VmNotifier(Provider<WorkflowClient> client, VmRepository vms) {
    this.client = client;
    this.vms = vms;
  }

  /** Signals the VM's current status; a VM or workflow that is gone has nobody left to tell. */
  public void notify(String vmName) {
    VmRow vm = vms.findById(vmName).orElse(null);
    if (vm == null) {
      return;
    }
    try {
      client.get().newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vmName))
          .observed(
              new VmObservation(vm.status(), vm.worker(), vm.statusMessage(), vm.exitCode(), vm.restartCount(),
                  Columns.millis(vm.startedAt()), Columns.millis(vm.finishedAt())));
    } catch (WorkflowNotFoundException e) {
      // Deleted meanwhile, or not restored yet: the host's start-up reconciliation covers the latter.
    }
  }
}
