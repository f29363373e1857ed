package dev.rota.workflows.vmset;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One VM set: keeps its replicas (VMs named {@code <set>-<ordinal>}, each with a workflow of its
 * own) matching what the store says the set is, until the set is deleted. Its id is {@link
 * #workflowId(String)}.
 */
@WorkflowInterface
public interface VmSetWorkflow {
  static String workflowId(String setName) {
    return "vmset-" + setName;
  }

  @WorkflowMethod
  void run(String setName);

  /**
   * The set's row changed (replicas, template, deletion) or one of its replicas went: look again
   * now.
   */
  @SignalMethod
  void changed();

  /** What the last pass found and did. */
  @QueryMethod
  SetProgress progress();
}
