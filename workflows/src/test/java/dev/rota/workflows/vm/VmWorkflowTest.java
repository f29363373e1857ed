package dev.rota.workflows.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.Histories;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VmWorkflowTest {
  /** A fake read model: the statuses and events the workflow recorded, and whether it deleted. */
  static final class RecordingVmActivities implements VmActivities {
    final List<String> recorded = new CopyOnWriteArrayList<>();
    final List<String> deleted = new CopyOnWriteArrayList<>();

    @Override
    public void recordStatus(String vmName, String status, String message, String eventType) {
      recorded.add(status + "/" + eventType);
    }

    @Override
    public void deleteVm(String vmName) {
      deleted.add(vmName);
    }
  }

  private TestWorkflowEnvironment env;
  private RecordingVmActivities activities;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    RotaSearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(VmWorkflowImpl.class);
    activities = new RecordingVmActivities();
    worker.registerActivitiesImplementations(activities);
    env.start();
  }

  @AfterEach
  void close() {
    env.close();
  }

  private VmWorkflow startVm(String name) {
    VmWorkflow vm =
        env.getWorkflowClient()
            .newWorkflowStub(
                VmWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(VmWorkflow.workflowId(name))
                    .setTaskQueue(TaskQueues.CONTROL)
                    .build());
    WorkflowClient.start(vm::run, name);
    return vm;
  }

  @Test
  void aVmWaitsPendingCanBeStoppedAndStartedAndIsDeletedOnRequest() throws Exception {
    VmWorkflow vm = startVm("life");
    assertEquals("pending", vm.status());
    var status = env.getWorkflowClient().newUntypedWorkflowStub("vm-life").describe();
    assertEquals("pending", status.getTypedSearchAttributes().get(RotaSearchAttributes.VM_STATUS));

    assertEquals("stopped", vm.stop());
    assertEquals("pending", vm.start());
    assertEquals(List.of("stopped/stopped", "pending/started"), activities.recorded);

    vm.delete();
    WorkflowStub.fromTyped(vm).getResult(Void.class);
    assertEquals(List.of("life"), activities.deleted);
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        env.getWorkflowClient().newUntypedWorkflowStub("vm-life").describe().getStatus());
    Histories.replayAndMaybeRecord(env.getWorkflowClient(), "vm-life", VmWorkflowImpl.class, "vm-lifecycle");
  }

  @Test
  void actionsTheStatusDoesNotAllowAreRefusedAndRecordNothing() {
    VmWorkflow vm = startVm("refuse");
    WorkflowUpdateException start = assertThrows(WorkflowUpdateException.class, vm::start);
    assertTrue(start.getCause().getMessage().contains("it is pending"), start.getCause().getMessage());
    assertThrows(WorkflowUpdateException.class, vm::restart);
    vm.stop();
    assertThrows(WorkflowUpdateException.class, vm::stop);
    assertEquals(List.of("stopped/stopped"), activities.recorded, "refusals leave no trace");
    assertEquals("stopped", vm.status());
  }
}
