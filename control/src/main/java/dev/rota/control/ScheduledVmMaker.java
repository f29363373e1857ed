package dev.rota.control;

import dev.rota.workflows.schedule.ScheduledRun;

/** Makes the VM of a schedule's run of its template, as a dispatch makes one: the API's to do. */
public interface ScheduledVmMaker {
  /**
   * Makes the VM {@code vm} of the run's template, unless a VM of that name exists already.
   *
   * @throws CannotMake when the template is gone or no longer takes the run's parameters
   */
  void make(ScheduledRun run, String vm);

  /** The run's VM cannot be made, and no later try would make it. */
  class CannotMake extends RuntimeException {
    public CannotMake(String message) {
      super(message);
    }
  }
}
