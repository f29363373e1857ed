package dev.rota.scheduler.temporal;

import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;

/**
 * The host's one holder of the Temporal client: every class that calls Temporal asks it, for a
 * workflow's stub or, to start one with its options, for the client itself. The client is given
 * lazily, since the host connects to Temporal after the context is up.
 */
@Singleton
public class WorkflowStubs {
  private final Provider<WorkflowClient> client;

  public WorkflowStubs(Provider<WorkflowClient> client) {
    this.client = client;
  }

  /** The scheduler's workflow, {@code rota-cluster}. */
  public ClusterWorkflow scheduler() {
    return client.get().newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID);
  }

  /** The open run of a VM's workflow. */
  public VmWorkflow vm(String vmName) {
    return client.get().newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vmName));
  }

  public WorkflowClient client() {
    return client.get();
  }
}
