package dev.rota.workflows;

import java.time.Duration;

/** Options every Rota workflow starts with. */
public final class WorkflowDefaults {
  /**
   * How long a host may hold a workflow task before Temporal gives it to another host. Rota's
   * workflow tasks do no I/O and take milliseconds, so Temporal's default of 10 s was only ever the
   * time a host that died holding one cost: with two hosts and one killed, the scheduler's next
   * term waited for that workflow task to time out.
   */
  public static final Duration WORKFLOW_TASK_TIMEOUT = Duration.ofSeconds(3);

  private WorkflowDefaults() {}
}
