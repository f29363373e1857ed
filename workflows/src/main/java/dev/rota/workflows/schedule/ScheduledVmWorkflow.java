package dev.rota.workflows.schedule;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One run of a schedule: makes a VM of the schedule's template and lasts as long as that VM runs,
 * so that the schedule's overlap policy (skip, buffer one, allow all, cancel the previous) applies
 * to the VMs themselves. Started by a Temporal Schedule whose id is {@link #scheduleId(String)};
 * Temporal names each run {@code <schedule id>-<its time>}.
 */
@WorkflowInterface
public interface ScheduledVmWorkflow {
  /** The id of the Temporal Schedule behind Rota's schedule of that name. */
  static String scheduleId(String scheduleName) {
    return "rota-schedule-" + scheduleName;
  }

  /** The Temporal Schedule's id back to Rota's schedule's name, or null when it is not Rota's. */
  static String scheduleName(String scheduleId) {
    String prefix = scheduleId("");
    return scheduleId.startsWith(prefix) ? scheduleId.substring(prefix.length()) : null;
  }

  @WorkflowMethod
  void run(ScheduledRun run);
}
