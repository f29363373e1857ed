package dev.rota.workflows;

import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.cluster.ClusterWorkflowImpl;
import dev.rota.workflows.schedule.ScheduledVmWorkflowImpl;
import dev.rota.workflows.vm.VmWorkflowImpl;
import dev.rota.workflows.vmset.VmSetWorkflowImpl;
import io.temporal.worker.Worker;

/** What each of Rota's task queues carries, for the host's workers and the tests' alike. */
public final class RotaWorkflows {
  private RotaWorkflows() {}

  /**
   * The control queue: the VMs', the VM sets' and the schedules' runs' workflows, with the
   * activities given.
   */
  public static void registerControl(Worker worker, Object... activities) {
    worker.registerWorkflowImplementationTypes(
        VmWorkflowImpl.class, VmSetWorkflowImpl.class, ScheduledVmWorkflowImpl.class);
    worker.registerActivitiesImplementations(activities);
  }

  /** The scheduler's queue: the cluster workflow and its term activity, nothing else. */
  public static void registerScheduler(Worker worker, ClusterActivities terms) {
    worker.registerWorkflowImplementationTypes(ClusterWorkflowImpl.class);
    worker.registerActivitiesImplementations(terms);
  }
}
