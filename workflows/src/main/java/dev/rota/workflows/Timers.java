package dev.rota.workflows;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.function.Supplier;

/** Waiting in workflow code, legibly: every timer has a summary in the Temporal UI. */
public final class Timers {
  private Timers() {}

  /**
   * Sleeps for {@code duration} unless {@code wakeUp} becomes true first, in which case the timer is
   * cancelled. Returns whether it was woken.
   */
  public static boolean sleepUnless(Duration duration, String summary, Supplier<Boolean> wakeUp) {
    if (wakeUp.get()) {
      return true;
    }
    CancellationScope wait =
        Workflow.newCancellationScope(
            () -> {
              Promise<Void> timer = Workflow.newTimer(duration, TimerOptions.newBuilder().setSummary(summary).build());
              // A timer cancelled on wake-up fails its promise; read it, so that is not reported as lost.
              timer.exceptionally(cancelled -> null);
              Workflow.await(() -> timer.isCompleted() || wakeUp.get());
            });
    wait.run();
    wait.cancel();
    return wakeUp.get();
  }
}
