package dev.rota.api;

import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.cluster.ClusterState;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vmset.VmSetActivities;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import jakarta.inject.Singleton;

/** The real workflows and activities on Temporal's in-memory test server, for the API's tests. */
@Factory
class TemporalTestFactory {
  @Singleton
  @Bean(preDestroy = "close")
  TestWorkflowEnvironment testWorkflowEnvironment(
      ClusterActivities cluster, VmActivities vm, VmSetActivities sets) {
    TestWorkflowEnvironment env = TemporalTestEnvironments.started(cluster, vm, sets);
    ClusterWorkflow scheduler =
        env.getWorkflowClient()
            .newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.startOptions().build());
    WorkflowClient.start(scheduler::run, ClusterState.initial());
    return env;
  }

  @Singleton
  WorkflowClient workflowClient(TestWorkflowEnvironment env) {
    return env.getWorkflowClient();
  }
}
