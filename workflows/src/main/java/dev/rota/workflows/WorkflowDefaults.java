package dev.rota.workflows;

import java.time.Duration;

/** Options every Rota workflow starts with. */
public final class WorkflowDefaults {
  /**
   * How long a host may hold a workflow task before Temporal gives it to another host. Rota's workflow
   * tasks do no I/O and take milliseconds, so Temporal's default of 10 s was only ever the time a host
   * that died holding one cost: measured with two hosts and one killed (TwoHostsIT), the scheduler's
   * next term came 10.5 s after the kill, all of it one workflow task timing out.
   */
  public static final Duration WORKFLOW_TASK_TIMEOUT = Duration.ofSeconds(3);

  private WorkflowDefaults() {}
}
