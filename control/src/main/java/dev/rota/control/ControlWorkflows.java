package dev.rota.control;

import dev.rota.settings.SchedulerSettings;
import dev.rota.settings.VmSettings;
import dev.rota.store.VmRow;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.WorkflowDefaults;
import dev.rota.workflows.cluster.ClusterState;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.vm.VmWorkflow;
import dev.rota.workflows.vmset.VmSetWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;

/**
 * Starting and signalling the scheduler's, the VM and the VM-set workflows, for whoever stores a VM
 * or a set (the API, a set's workflow) or restores them (a host at start, {@link WorkflowKeeper}).
 */
@Singleton
public class ControlWorkflows {
  private final Provider<WorkflowClient> client;
  private final VmSettings settings;
  private final SchedulerSettings scheduler;

  public ControlWorkflows(
      Provider<WorkflowClient> client, VmSettings settings, SchedulerSettings scheduler) {
    this.client = client;
    this.settings = settings;
    this.scheduler = scheduler;
  }

  /**
   * Starts the scheduler's workflow, or joins the run another host started: USE_EXISTING makes
   * Temporal's one-open-run-per-id rule the leader election.
   */
  public WorkflowExecution startScheduler() {
    ClusterWorkflow cluster =
        client
            .get()
            .newWorkflowStub(
                ClusterWorkflow.class,
                ClusterWorkflow.startOptions()
                    .setStaticSummary("Rota scheduler: observe, health, place, reconcile")
                    .setStaticDetails(
                        "One term at least every "
                            + scheduler.interval().toMillis()
                            + " ms, sooner on a wake-up signal. Query `lastTerm` for the last term's summary.")
                    .build());
    return WorkflowClient.start(cluster::run, ClusterState.initial());
  }

  /**
   * Whether the scheduler's workflow has an open run; false when it has none or ended (terminated,
   * failed).
   */
  public boolean schedulerRuns() {
    try {
      return client.get().newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID).describe().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  /**
   * Starts the VM's workflow. With {@code joinOpen} false, a workflow still open under its name (a
   * delete in progress) is {@link io.temporal.client.WorkflowExecutionAlreadyStarted}; with true it
   * is joined: what a host does at start, when the embedded server has forgotten every workflow but
   * the database remembers every VM. A VM just submitted is handed to its workflow as stored, so
   * that its first run reads nothing back; a joined or restored one reads the store, which may be
   * newer.
   */
  public void startVm(VmRow vm, boolean joinOpen) {
    VmWorkflow stub =
        client
            .get()
            .newWorkflowStub(
                VmWorkflow.class,
                options(VmWorkflow.workflowId(vm.name()), joinOpen)
                    .setTypedSearchAttributes(
                        SearchAttributes.newBuilder()
                            .set(RotaSearchAttributes.VM_STATUS, vm.status())
                            .build())
                    .setStaticSummary(VmSummary.of(vm))
                    .setStaticDetails(vmDetails(vm.name()))
                    .setMemo(java.util.Map.of(SUBMISSION, vm.seq()))
                    .build());
    WorkflowClient.start(
        stub::run, vm.name(), null, joinOpen ? null : VmActivitiesImpl.record(vm, settings));
  }

  /**
   * The memo that names the submission a VM's workflow was started for: a name may be submitted
   * again.
   */
  static final String SUBMISSION = "submission";

  /**
   * Whether the VM's open workflow is the one of submission {@code seq} (started by an earlier try,
   * here or on another host), rather than one of a VM deleted under the same name that is still
   * closing.
   */
  public boolean openFor(String vmName, long seq) {
    try {
      Object memo =
          client
              .get()
              .newUntypedWorkflowStub(VmWorkflow.workflowId(vmName))
              .describe()
              .getMemo(SUBMISSION, Long.class);
      return memo instanceof Long s && s == seq;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  /** What the Temporal UI shows under Details for every VM workflow: where to look next. */
  static String vmDetails(String name) {
    return "Lifecycle of VM `"
        + name
        + "`: pending, scheduled, running; failed or stopped; restarts by its policy.\n\n"
        + "- Current details: its status, worker and restart count\n"
        + "- Query `status`; search attributes `RotaVmStatus`, `RotaWorker`\n"
        + "- Its events: `GET /v1/vms/"
        + name
        + "/events`";
  }

  /** Asks the VM's workflow to delete it; false if it has no open workflow. */
  public boolean requestVmDelete(String vmName) {
    return signalIfOpen(
        () ->
            client.get().newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vmName)).delete());
  }

  /** Starts the set's workflow; {@code joinOpen} as for {@link #startVm}. */
  public void startSet(String setName, int replicas, boolean joinOpen) {
    VmSetWorkflow stub =
        client
            .get()
            .newWorkflowStub(
                VmSetWorkflow.class,
                options(VmSetWorkflow.workflowId(setName), joinOpen)
                    .setStaticSummary(
                        "VM set " + setName + ": " + replicas + " replicas when created")
                    .setStaticDetails(
                        "Keeps the replicas `"
                            + setName
                            + "-0` … matching `GET /v1/vm-sets/"
                            + setName
                            + "`: submits the missing, deletes the surplus (highest ordinals first), looks again every minute."
                            + "\n\n- Current details: its last pass\n- Query `progress`")
                    .build());
    WorkflowClient.start(stub::run, setName);
  }

  /** Tells the set's workflow to look again now; false if it has no open workflow. */
  public boolean setChanged(String setName) {
    return signalIfOpen(
        () ->
            client
                .get()
                .newWorkflowStub(VmSetWorkflow.class, VmSetWorkflow.workflowId(setName))
                .changed());
  }

  /** Sends a signal; false if the workflow has no open run to take it. */
  private static boolean signalIfOpen(Runnable signal) {
    try {
      signal.run();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  private static WorkflowOptions.Builder options(String workflowId, boolean joinOpen) {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowTaskTimeout(WorkflowDefaults.WORKFLOW_TASK_TIMEOUT)
        .setWorkflowIdConflictPolicy(
            joinOpen
                ? WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
                : WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL);
  }
}
