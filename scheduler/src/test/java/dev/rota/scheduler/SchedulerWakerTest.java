package dev.rota.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.scheduler.temporal.WorkflowStubs;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.grpc.Status;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import org.junit.jupiter.api.Test;

/**
 * A wake-up Temporal does not take leaves no claim behind: the next one is sent, not taken as
 * pending.
 */
@MicronautTest(transactional = false)
class SchedulerWakerTest {
  @Inject ClusterStatusRepository status;

  @Test
  void aWakeUpTemporalRefusedLeavesTheNextOneFreeToGo() {
    status.clearWake(ClusterWorkflow.WORKFLOW_ID);
    int[] tried = {0};
    Provider<WorkflowClient> away =
        () -> {
          tried[0]++;
          throw Status.UNAVAILABLE.withDescription("connection refused").asRuntimeException();
        };
    SchedulerWaker waker =
        new SchedulerWaker(
            new WorkflowStubs(away), status, event -> {}, new TemporalDeadlines(), null);
    waker.wake("a submission");
    waker.wake("another submission");
    assertEquals(
        2, tried[0], "each wake-up tried Temporal: the first one's failure left no claim pending");
    assertEquals(1, status.claimWake(ClusterWorkflow.WORKFLOW_ID), "and none is pending now");
    status.clearWake(ClusterWorkflow.WORKFLOW_ID);
  }
}
