package dev.rota.workflows;

import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;

/**
 * Waits for a workflow under test to have done all it can: its history ends neither in a workflow
 * task nor in an activity scheduled or started. Skipped time alone does not wait for the worker: on
 * a loaded machine a sleep can pass before the workflow's first task has even run.
 */
public final class Settled {
  private Settled() {}

  public static void settle(TestWorkflowEnvironment env, String workflowId) {
    env.sleep(Duration.ofMillis(10));
    dev.rota.testing.Eventually.eventually(
        "the workflow settles",
        () -> {
          var events = env.getWorkflowClient().fetchHistory(workflowId).getEvents();
          var last = events.get(events.size() - 1);
          return !(last.hasWorkflowTaskScheduledEventAttributes()
              || last.hasWorkflowTaskStartedEventAttributes()
              || last.hasActivityTaskScheduledEventAttributes()
              || last.hasActivityTaskStartedEventAttributes());
        });
  }
}
