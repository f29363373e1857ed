package dev.rota.api;

import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.cluster.ClusterState;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.ClusterWorkflowImpl;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vm.VmWorkflowImpl;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import jakarta.inject.Singleton;

/** The real workflows and activities on Temporal's in-memory test server, for the API's tests. */
@Factory
class TemporalTestFactory {
  @Singleton
  @Bean(preDestroy = "close")
  TestWorkflowEnvironment testWorkflowEnvironment(ClusterActivities cluster, VmActivities vm) {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
    RotaSearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(ClusterWorkflowImpl.class, VmWorkflowImpl.class);
    worker.registerActivitiesImplementations(cluster, vm);
    env.start();
    ClusterWorkflow scheduler =
        env.getWorkflowClient()
            .newWorkflowStub(
                ClusterWorkflow.class,
                ClusterWorkflow.startOptions().build());
    WorkflowClient.start(scheduler::run, ClusterState.initial());
    return env;
  }

  @Singleton
  WorkflowClient workflowClient(TestWorkflowEnvironment env) {
    return env.getWorkflowClient();
  }
}
