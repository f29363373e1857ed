package dev.rota.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.workflows.Histories;
import dev.rota.workflows.TaskQueues;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A schedule's run against VMs kept in memory, in skipped time: it makes one VM named after its
 * time and lasts as long as it; cancelled (the next run replaces it), it stops its VM; a template
 * gone fails it.
 */
class ScheduledVmWorkflowTest {
  /** VMs that run until {@link #end} says so; every call recorded. */
  static final class InMemoryVms implements ScheduledVmActivities {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final Map<String, Boolean> ended = new java.util.concurrent.ConcurrentHashMap<>();
    volatile String missingTemplate;
    volatile boolean failFirstWait;

    @Override
    public void dispatch(ScheduledRun run, String vm) {
      if (run.template().equals(missingTemplate)) {
        throw ApplicationFailure.newNonRetryableFailure(
            "template " + run.template() + " does not exist", "TemplateGone");
      }
      calls.add("dispatch " + vm + " " + run.parameters());
      ended.putIfAbsent(vm, false);
    }

    @Override
    public String awaitEnd(String vm) {
      if (Activity.getExecutionContext().getInfo().getAttempt() > 1) {
        calls.add("await " + vm + " again");
      } else {
        calls.add("await " + vm);
        if (failFirstWait) {
          throw new IllegalStateException("the host waiting died");
        }
      }
      while (!ended.getOrDefault(vm, true)) {
        Activity.getExecutionContext().heartbeat(null);
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return "stopped";
    }

    @Override
    public void stop(String vm) {
      calls.add("stop " + vm);
      ended.put(vm, true);
    }
  }

  private final InMemoryVms vms = new InMemoryVms();
  private final TestWorkflowEnvironment env = TemporalTestEnvironments.started(vms);

  @AfterEach
  void close() {
    env.close();
  }

  private ScheduledVmWorkflow run(String workflowId) {
    return env.getWorkflowClient()
        .newWorkflowStub(
            ScheduledVmWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(workflowId)
                .setTaskQueue(TaskQueues.CONTROL)
                .build());
  }

  private static final String RUN_ID = "rota-schedule-nightly-2026-12-01T20:00:00Z";

  /** The VM of the run started last. */
  private String vm;

  private void started(ScheduledVmWorkflow run, ScheduledRun what) {
    String runId = WorkflowClient.start(run::run, what).getRunId();
    vm = ScheduledVmNames.of("nightly", RUN_ID, runId);
  }

  private void awaitCall(String call) throws InterruptedException {
    for (int i = 0; i < 3000 && !vms.calls.contains(call); i++) {
      Thread.sleep(10);
    }
    assertEquals(true, vms.calls.contains(call), call + " in " + vms.calls);
  }

  @Test
  void aRunMakesItsVmAndEndsWithIt() throws Exception {
    ScheduledVmWorkflow run = run(RUN_ID);
    started(run, new ScheduledRun("nightly", "build", Map.of("BRANCH", "main")));
    awaitCall("await " + vm);
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        WorkflowStub.fromTyped(run).describe().getStatus(),
        "the run lasts while its VM runs");
    vms.ended.put(vm, true);
    WorkflowStub.fromTyped(run).getResult(Void.class);
    assertEquals(List.of("dispatch " + vm + " {BRANCH=main}", "await " + vm), vms.calls);
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), RUN_ID, ScheduledVmWorkflowImpl.class, "schedule-run");
  }

  @Test
  void aRunCancelledForTheNextStopsItsVm() throws Exception {
    ScheduledVmWorkflow run = run(RUN_ID);
    started(run, new ScheduledRun("nightly", "build", Map.of()));
    awaitCall("await " + vm);
    WorkflowStub.fromTyped(run).cancel();
    WorkflowFailedException ended =
        assertThrows(
            WorkflowFailedException.class, () -> WorkflowStub.fromTyped(run).getResult(Void.class));
    assertInstanceOf(CanceledFailure.class, ended.getCause(), "the run ends cancelled");
    assertEquals(List.of("dispatch " + vm + " {}", "await " + vm, "stop " + vm), vms.calls);
    Histories.replayAndMaybeRecord(
        env.getWorkflowClient(), RUN_ID, ScheduledVmWorkflowImpl.class, "schedule-run-cancelled");
  }

  @Test
  void aRunWhoseTemplateIsGoneFailsAndStopsNothing() {
    vms.missingTemplate = "build";
    ScheduledVmWorkflow run = run(RUN_ID);
    WorkflowFailedException failed =
        assertThrows(
            WorkflowFailedException.class,
            () -> run.run(new ScheduledRun("nightly", "build", Map.of())));
    ActivityFailure cause = assertInstanceOf(ActivityFailure.class, failed.getCause());
    assertEquals(
        "template build does not exist",
        ((ApplicationFailure) cause.getCause()).getOriginalMessage());
    assertEquals(List.of(), vms.calls);
  }

  @Test
  void aWaitCutShortByAHostDyingGoesOnWithoutASecondVm() throws Exception {
    vms.failFirstWait = true;
    ScheduledVmWorkflow run = run(RUN_ID);
    started(run, new ScheduledRun("nightly", "build", Map.of()));
    awaitCall("await " + vm + " again");
    vms.ended.put(vm, true);
    WorkflowStub.fromTyped(run).getResult(Void.class);
    assertEquals(
        List.of("dispatch " + vm + " {}", "await " + vm, "await " + vm + " again"),
        vms.calls,
        "the wait is taken up again; the VM is not made twice");
  }
}
