package dev.rota.activities.term;

import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.testing.TestClock;
import io.micronaut.context.annotation.Replaces;
import java.time.Clock;
import dev.rota.activities.ClusterActivitiesImpl;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.vm.VmActivities;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import jakarta.inject.Singleton;

/** Temporal's time-skipping test server running the real workflows and activities. */
@Factory
class TemporalTestFactory {
  @Singleton
  @Bean(preDestroy = "close")
  TestWorkflowEnvironment testWorkflowEnvironment(
      ClusterActivitiesImpl cluster, VmActivities vm, FakeAgents agents, WorkerRepository workers, TestClock clock) {
    TestWorkflowEnvironment env = TemporalTestEnvironments.started(new HeartbeatingAgents(cluster, agents, workers, clock), vm);
    clock.follow(env::currentTimeMillis);
    return env;
  }

  /** The activities' clock: the Temporal test server's, so that skipped time counts for them too. */
  @Singleton
  @Replaces(Clock.class)
  TestClock clock() {
    return TestClock.following(System::currentTimeMillis);
  }

  @Singleton
  WorkflowClient workflowClient(TestWorkflowEnvironment env) {
    return env.getWorkflowClient();
  }
}
