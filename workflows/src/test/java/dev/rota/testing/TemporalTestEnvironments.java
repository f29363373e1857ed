package dev.rota.testing;

import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.RotaWorkflows;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;

/**
 * Temporal's time-skipping test server as every test of Rota's workflows needs it: Rota's search
 * attributes registered (as the real server has them), Rota's workflows on the control
 * task queue, with the activities given, started.
 */
public final class TemporalTestEnvironments {
  private TemporalTestEnvironments() {}

  public static TestWorkflowEnvironment started(Object... activities) {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
    RotaSearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(RotaWorkflows.IMPLEMENTATIONS);
    worker.registerActivitiesImplementations(activities);
    env.start();
    return env;
  }
}
