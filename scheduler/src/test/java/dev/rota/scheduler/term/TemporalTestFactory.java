package dev.rota.scheduler.term;

import dev.rota.scheduler.ClusterActivitiesImpl;
import dev.rota.store.WorkerRepository;
import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.testing.TestClock;
import dev.rota.workflows.vm.VmActivities;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.Optional;

/**
 * Temporal's time-skipping test server running the real workflows and activities: the term's, and
 * the VMs' where the context has them (the control module's tests, which take this from the
 * scheduler's test-jar).
 */
@Factory
class TemporalTestFactory {
  @Singleton
  @Bean(preDestroy = "close")
  TestWorkflowEnvironment testWorkflowEnvironment(
      ClusterActivitiesImpl cluster,
      Optional<VmActivities> vm,
      FakeAgents agents,
      WorkerRepository workers,
      TestClock clock) {
    Object terms = new HeartbeatingAgents(cluster, agents, workers, clock);
    TestWorkflowEnvironment env =
        vm.isPresent()
            ? TemporalTestEnvironments.started(terms, vm.get())
            : TemporalTestEnvironments.started(terms);
    clock.follow(env::currentTimeMillis);
    return env;
  }

  /**
   * The activities' clock: the Temporal test server's, so that skipped time counts for them too.
   */
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
