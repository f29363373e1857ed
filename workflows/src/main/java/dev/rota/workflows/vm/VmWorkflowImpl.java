package dev.rota.workflows.vm;

import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.model.VmStatus;
import dev.rota.workflows.model.WireName;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;

/**
 * The lifecycle so far: a VM waits pending for the scheduler, can be stopped and started again, and
 * is deleted on request. Placement, running and restarts join with the scheduler and agents.
 */
public class VmWorkflowImpl implements VmWorkflow {
  private final VmActivities activities =
      Workflow.newActivityStub(
          VmActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofSeconds(30))
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(1))
                      .setBackoffCoefficient(2)
                      .setMaximumInterval(Duration.ofMinutes(1))
                      .build())
              .build());

  private final String name;
  private VmStatus status = VmStatus.PENDING;
  private String worker;
  private boolean deleteRequested;

  /** Runs before any handler, so that an update in the first workflow task knows the VM. */
  @WorkflowInit
  public VmWorkflowImpl(String vmName) {
    this.name = vmName;
  }

  @Override
  public void run(String vmName) {
    show(status);
    Workflow.await(() -> deleteRequested);
    Workflow.await(Workflow::isEveryHandlerFinished);
    activities.deleteVm(name);
  }

  @Override
  public void validateStop() {
    if (deleteRequested || status != VmStatus.PENDING) {
      throw notAllowed("stop");
    }
  }

  @Override
  public String stop() {
    status = VmStatus.STOPPED;
    activities.recordStatus(name, status.wireName(), "stopped by request", "stopped");
    show(status);
    return status.wireName();
  }

  @Override
  public void validateStart() {
    if (deleteRequested || (status != VmStatus.STOPPED && status != VmStatus.FAILED)) {
      throw notAllowed("start");
    }
  }

  @Override
  public String start() {
    status = VmStatus.PENDING;
    activities.recordStatus(name, status.wireName(), "waiting for the scheduler", "started");
    show(status);
    return status.wireName();
  }

  @Override
  public void validateRestart() {
    if (deleteRequested
        || (status != VmStatus.SCHEDULED && status != VmStatus.RUNNING && status != VmStatus.FAILED)) {
      throw notAllowed("restart");
    }
  }

  @Override
  public String restart() {
    status = VmStatus.PENDING;
    activities.recordStatus(name, status.wireName(), "restart requested; waiting for the scheduler", "restart-requested");
    show(status);
    return status.wireName();
  }

  @Override
  public void observed(VmObservation observation) {
    if (deleteRequested) {
      return;
    }
    status = WireName.parse(VmStatus.class, observation.status()).orElse(status);
    worker = observation.worker();
    show(status);
  }

  @Override
  public void delete() {
    deleteRequested = true;
  }

  @Override
  public String status() {
    return status.wireName();
  }

  private ApplicationFailure notAllowed(String action) {
    String why = deleteRequested ? "it is being deleted" : "it is " + status.wireName();
    return ApplicationFailure.newNonRetryableFailure(
        "cannot " + action + " VM " + name + ": " + why, "NotAllowed");
  }

  private void show(VmStatus s) {
    Workflow.upsertTypedSearchAttributes(
        RotaSearchAttributes.VM_STATUS.valueSet(s.wireName()),
        worker == null ? RotaSearchAttributes.WORKER.valueUnset() : RotaSearchAttributes.WORKER.valueSet(worker));
    Workflow.setCurrentDetails("**" + s.wireName() + "**" + (worker == null ? "" : " on " + worker));
  }
}
