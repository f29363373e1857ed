package dev.rota.workflows.schedule;

import dev.rota.workflows.ActivityDefaults;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Makes the run's VM, then waits for it to end. Cancelled (a schedule that cancels the previous run
 * when the next is due), it stops its VM before it ends: the next run's VM takes its place.
 */
public class ScheduledVmWorkflowImpl implements ScheduledVmWorkflow {
  /**
   * How long one attempt of the wait lasts before Temporal starts another: a VM may run for days,
   * and each attempt only reads its status.
   */
  static final Duration WAIT_ATTEMPT = Duration.ofHours(24);

  /** How long a host may go silent while it waits before another host takes the wait over. */
  static final Duration WAIT_HEARTBEAT = Duration.ofSeconds(10);

  private static ScheduledVmActivities activities(String summary) {
    return Workflow.newActivityStub(
        ScheduledVmActivities.class,
        ActivityOptions.newBuilder(ActivityDefaults.store(Duration.ofMinutes(1)))
            // The VM is made, or not, before a cancellation is seen: a VM made after its run's
            // stop would be left running.
            .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
            .setSummary(summary)
            .build());
  }

  @Override
  public void run(ScheduledRun run) {
    String vm =
        ScheduledVmNames.of(
            run.schedule(),
            Workflow.getInfo().getWorkflowId(),
            Workflow.getInfo().getFirstExecutionRunId());
    Workflow.setCurrentDetails("**VM " + vm + "** of template " + run.template() + ": making it");
    activities("make VM " + vm + " of template " + run.template()).dispatch(run, vm);
    Workflow.setCurrentDetails(
        "**VM " + vm + "** of template " + run.template() + ": running; this run ends with it");
    ScheduledVmActivities waiting =
        Workflow.newActivityStub(
            ScheduledVmActivities.class,
            ActivityOptions.newBuilder(ActivityDefaults.store(Duration.ofMinutes(1)))
                .setStartToCloseTimeout(WAIT_ATTEMPT)
                .setHeartbeatTimeout(WAIT_HEARTBEAT)
                .setCancellationType(ActivityCancellationType.TRY_CANCEL)
                .setSummary("wait for VM " + vm + " to end")
                .build());
    try {
      String end = waiting.awaitEnd(vm);
      Workflow.setCurrentDetails("**VM " + vm + "** of template " + run.template() + ": " + end);
    } catch (ActivityFailure | CanceledFailure e) {
      if (!CancellationScope.current().isCancelRequested()) {
        throw e;
      }
      Workflow.newDetachedCancellationScope(
              () -> activities("stop VM " + vm + ": the next run replaces it").stop(vm))
          .run();
      Workflow.setCurrentDetails(
          "**VM "
              + vm
              + "** of template "
              + run.template()
              + ": stopped, replaced by the next run");
      // Thrown as it was asked, the run ends cancelled rather than failed.
      throw e instanceof CanceledFailure canceled
          ? canceled
          : new CanceledFailure("VM " + vm + " stopped: the next run replaces it");
    }
  }
}
