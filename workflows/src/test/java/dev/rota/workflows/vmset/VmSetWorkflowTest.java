package dev.rota.workflows.vmset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.workflows.Histories;
import dev.rota.workflows.TaskQueues;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The set's workflow against an in-memory store of one set, in skipped time. */
class VmSetWorkflowTest {
  /**
   * One set and its replicas' ordinals, reconciled as the real activity does; deletions take one
   * pass to land.
   */
  static final class InMemorySet implements VmSetActivities {
    volatile int replicas;
    volatile boolean exists = true;
    volatile boolean deleting;
    final TreeSet<Integer> ordinals = new TreeSet<>();
    final TreeSet<Integer> beingDeleted = new TreeSet<>();
    final List<Long> passesAt = new ArrayList<>();
    private final TestWorkflowEnvironment[] env;

    InMemorySet(int replicas, TestWorkflowEnvironment[] env) {
      this.replicas = replicas;
      this.env = env;
    }

    @Override
    public synchronized SetProgress reconcile(SetRef set) {
      passesAt.add(env[0].currentTimeMillis());
      ordinals.removeAll(beingDeleted); // the replicas asked to go last pass are gone now
      beingDeleted.clear();
      if (!exists) {
        return SetProgress.deleted();
      }
      if (deleting && ordinals.isEmpty()) {
        exists = false;
        return SetProgress.deleted();
      }
      int wanted = deleting ? 0 : replicas;
      int created = 0;
      for (int i = 0; i < wanted; i++) {
        if (ordinals.add(i)) {
          created++;
        }
      }
      beingDeleted.addAll(ordinals.tailSet(wanted));
      return new SetProgress(
          false,
          beingDeleted.isEmpty(),
          wanted,
          ordinals.size(),
          created,
          beingDeleted.size(),
          null,
          null);
    }

    synchronized int passes() {
      return passesAt.size();
    }
  }

  private final TestWorkflowEnvironment[] env = new TestWorkflowEnvironment[1];

  @AfterEach
  void close() {
    env[0].close();
  }

  private InMemorySet start(int replicas) {
    InMemorySet store = new InMemorySet(replicas, env);
    env[0] = TemporalTestEnvironments.started(store);
    VmSetWorkflow set = stub();
    WorkflowClient.start(set::run, "web");
    return store;
  }

  private VmSetWorkflow stub() {
    return env[0]
        .getWorkflowClient()
        .newWorkflowStub(
            VmSetWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(VmSetWorkflow.workflowId("web"))
                .setTaskQueue(TaskQueues.CONTROL)
                .build());
  }

  private VmSetWorkflow running() {
    return env[0]
        .getWorkflowClient()
        .newWorkflowStub(VmSetWorkflow.class, VmSetWorkflow.workflowId("web"));
  }

  @Test
  void makesTheReplicasAtOnceThenLooksAgainOnlyOnTheResync() throws Exception {
    InMemorySet store = start(3);
    env[0].sleep(Duration.ofSeconds(1));
    dev.rota.workflows.Settled.settle(env[0], VmSetWorkflow.workflowId("web"));
    assertEquals(new TreeSet<>(List.of(0, 1, 2)), store.ordinals);
    assertEquals(1, store.passes());
    assertEquals(3, running().progress().created());
    int settledAt = historyLength();
    env[0].sleep(VmSetWorkflowImpl.RESYNC.minusSeconds(2));
    assertEquals(1, store.passes(), "a settled set is not looked at again before the resync");
    assertEquals(settledAt, historyLength(), "a settled set's history stays as it is");
    env[0].sleep(Duration.ofSeconds(2));
    assertEquals(2, store.passes(), "the resync");
    Histories.replayAndMaybeRecord(
        env[0].getWorkflowClient(),
        VmSetWorkflow.workflowId("web"),
        VmSetWorkflowImpl.class,
        "vmset-quiet-resync");
  }

  private int historyLength() {
    return env[0]
        .getWorkflowClient()
        .fetchHistory(VmSetWorkflow.workflowId("web"))
        .getEvents()
        .size();
  }

  @Test
  void aChangeIsActedOnAtOnceAndAScaleDownIsFollowedUpSoonUntilTheReplicasAreGone() {
    InMemorySet store = start(5);
    env[0].sleep(Duration.ofSeconds(1));
    dev.rota.workflows.Settled.settle(env[0], VmSetWorkflow.workflowId("web"));
    store.replicas = 2;
    running().changed();
    env[0].sleep(Duration.ofSeconds(1));
    dev.rota.workflows.Settled.settle(env[0], VmSetWorkflow.workflowId("web"));
    assertEquals(2, store.passes(), "the signal brought a pass without waiting for the resync");
    SetProgress scaled = running().progress();
    assertEquals(3, scaled.removing(), "the three highest ordinals asked to go");
    assertTrue(!scaled.settled());
    env[0].sleep(VmSetWorkflowImpl.RETRY);
    assertEquals(3, store.passes(), "unsettled: looked at again after the retry, not the resync");
    assertEquals(new TreeSet<>(List.of(0, 1)), store.ordinals, "the lowest ordinals stay");
    assertTrue(running().progress().settled());
  }

  @Test
  void aDeletedSetEndsItsWorkflowOnceItsReplicasAreGone() throws Exception {
    InMemorySet store = start(2);
    env[0].sleep(Duration.ofSeconds(1));
    store.deleting = true;
    running().changed();
    WorkflowStub untyped =
        env[0].getWorkflowClient().newUntypedWorkflowStub(VmSetWorkflow.workflowId("web"));
    untyped.getResult(Void.class);
    assertTrue(store.ordinals.isEmpty());
    assertEquals(false, store.exists, "the set's row went last");
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        env[0]
            .getWorkflowClient()
            .newUntypedWorkflowStub(VmSetWorkflow.workflowId("web"))
            .describe()
            .getStatus());
    Histories.replayAndMaybeRecord(
        env[0].getWorkflowClient(),
        VmSetWorkflow.workflowId("web"),
        VmSetWorkflowImpl.class,
        "vmset-delete");
  }

  @Test
  void aLongLivedSetContinuesAsNewAndKeepsGoing() {
    InMemorySet store = start(1);
    env[0].sleep(VmSetWorkflowImpl.RESYNC.multipliedBy(VmSetWorkflowImpl.PASSES_PER_RUN + 2));
    assertTrue(
        store.passes() >= VmSetWorkflowImpl.PASSES_PER_RUN + 2,
        "passes went on: " + store.passes());
    var description =
        env[0]
            .getWorkflowClient()
            .newUntypedWorkflowStub(VmSetWorkflow.workflowId("web"))
            .describe();
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, description.getStatus());
    assertTrue(
        description.getHistoryLength() < 200,
        "a new run's history: " + description.getHistoryLength());
  }
}
