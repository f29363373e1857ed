package dev.rota.testing;

import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.RotaWorkflows;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.cluster.ClusterActivities;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.Arrays;

/**
 * Temporal's time-skipping test server as every test of Rota's workflows needs it: Rota's search
 * attributes registered (as the real server has them), Rota's workflows on the control task queue
 * with the activities given, and the scheduler's queue when they include the cluster's, started.
 */
public final class TemporalTestEnvironments {
  private TemporalTestEnvironments() {}

  public static TestWorkflowEnvironment started(Object... activities) {
    return started(TestEnvironmentOptions.getDefaultInstance(), activities);
  }

  /** The same, with the test server's and its worker's options. */
  public static TestWorkflowEnvironment started(
      TestEnvironmentOptions options, Object... activities) {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options);
    RotaSearchAttributes.ALL.forEach(
        key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
    RotaWorkflows.registerControl(env.newWorker(TaskQueues.CONTROL), activities);
    Arrays.stream(activities)
        .filter(ClusterActivities.class::isInstance)
        .map(ClusterActivities.class::cast)
        .findFirst()
        .ifPresent(
            terms -> RotaWorkflows.registerScheduler(env.newWorker(TaskQueues.SCHEDULER), terms));
    env.start();
    return env;
  }
}
