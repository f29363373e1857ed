package dev.rota.workflows.cluster;

import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.WorkflowDefaults;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * The cluster's term loop. One open run per workflow id is Temporal's rule, and it is Rota's leader
 * election: every host starts this workflow with the conflict policy USE_EXISTING, so exactly one
 * scheduler acts however many hosts run.
 */
@WorkflowInterface
public interface ClusterWorkflow {
  /** The fixed id of the one cluster workflow. */
  String WORKFLOW_ID = "rota-cluster";

  /**
   * How every host (and every test) starts it: the fixed id, the scheduler's own queue,
   * USE_EXISTING.
   */
  static WorkflowOptions.Builder startOptions() {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(WORKFLOW_ID)
        .setTaskQueue(TaskQueues.SCHEDULER)
        .setWorkflowTaskTimeout(WorkflowDefaults.WORKFLOW_TASK_TIMEOUT)
        .setWorkflowIdConflictPolicy(
            WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING);
  }

  /** Runs terms forever, continuing as new when Temporal suggests it. */
  @WorkflowMethod
  void run(ClusterState state);

  /**
   * Asks for a term as soon as possible (new work arrived). Signals are coalesced: any number of
   * wake-ups between two terms cause one early term.
   */
  @SignalMethod
  void wake(String reason);

  /** The summary of the last finished term, or null before the first. */
  @QueryMethod
  TermSummary lastTerm();
}
