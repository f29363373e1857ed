package dev.rota.workflows;

import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.function.Supplier;

/** Waiting in workflow code, legibly: every timer has a summary in the Temporal UI. */
public final class Timers {
  private Timers() {}

  /**
   * Sleeps for {@code duration} unless {@code wakeUp} becomes true first. Returns whether it was
   * woken.
   */
  public static boolean sleepUnless(Duration duration, String summary, Supplier<Boolean> wakeUp) {
    if (wakeUp.get()) {
      return true;
    }
    // A timer overtaken by a wake-up is left to fire, not cancelled. Cancelling races the timer
    // firing during the same workflow task, and Temporal's in-process test server (the embedded
    // server of dev mode) then refuses the task for good ("invalid history builder state for
    // action", temporalio/sdk-java#2606), leaving the workflow stuck. A timer left to fire costs
    // one empty workflow task later and no Temporal action (the action is starting it).
    Promise<Void> timer =
        Workflow.newTimer(duration, TimerOptions.newBuilder().setSummary(summary).build());
    Workflow.await(() -> timer.isCompleted() || wakeUp.get());
    return wakeUp.get();
  }
}
