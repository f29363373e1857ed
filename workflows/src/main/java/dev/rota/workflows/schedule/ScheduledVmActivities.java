package dev.rota.workflows.schedule;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

@ActivityInterface
public interface ScheduledVmActivities {
  /**
   * Makes the VM {@code vm} of the run's template, unless a VM of that name exists already (this
   * activity, tried again after a host died): the name is the run's, so a run makes one VM at most.
   * A template gone, or a parameter it no longer takes, fails for good.
   */
  @ActivityMethod(name = "DispatchScheduledVm")
  void dispatch(ScheduledRun run, String vm);

  /**
   * Returns once the VM's run is over: stopped, failed and not to be restarted, or deleted.
   * Heartbeats while it waits, and so learns of the schedule's run being cancelled.
   */
  @ActivityMethod(name = "AwaitScheduledVmEnd")
  String awaitEnd(String vm);

  /** Stops the VM, if it still runs: the schedule started a run that replaces it. */
  @ActivityMethod(name = "StopScheduledVm")
  void stop(String vm);
}
