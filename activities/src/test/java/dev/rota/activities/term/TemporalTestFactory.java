package dev.rota.activities.term;

import dev.rota.activities.ClusterActivitiesImpl;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.cluster.ClusterWorkflowImpl;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vm.VmWorkflowImpl;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import jakarta.inject.Singleton;

/** Temporal's time-skipping test server running the real workflows and activities. */
@Factory
class TemporalTestFactory {
  @Singleton
  @Bean(preDestroy = "close")
  TestWorkflowEnvironment testWorkflowEnvironment(
      ClusterActivitiesImpl cluster, VmActivities vm, FakeAgents agents, WorkerRepository workers, ServerClock clock) {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
    clock.follow(env::currentTimeMillis);
    RotaSearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(ClusterWorkflowImpl.class, VmWorkflowImpl.class);
    worker.registerActivitiesImplementations(new HeartbeatingAgents(cluster, agents, workers, clock), vm);
    env.start();
    return env;
  }

  @Singleton
  WorkflowClient workflowClient(TestWorkflowEnvironment env) {
    return env.getWorkflowClient();
  }
}
