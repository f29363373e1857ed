package dev.rota.workflows;

import dev.rota.workflows.cluster.ClusterWorkflowImpl;
import dev.rota.workflows.vm.VmWorkflowImpl;
import dev.rota.workflows.vmset.VmSetWorkflowImpl;

/** Every workflow a Rota host runs on the control task queue, for the host's worker and the tests' alike. */
public final class RotaWorkflows {
  private RotaWorkflows() {}

  public static final Class<?>[] IMPLEMENTATIONS = {ClusterWorkflowImpl.class, VmWorkflowImpl.class, VmSetWorkflowImpl.class};
}
