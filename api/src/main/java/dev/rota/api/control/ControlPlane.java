package dev.rota.api.control;

import dev.rota.activities.ControlWorkflows;
import dev.rota.activities.SchedulerWaker;
import dev.rota.store.VmRow;
import dev.rota.api.problem.Problems;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import dev.rota.workflows.cluster.TermSummary;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the API asks of the workflows: start a VM's or a set's, wake the scheduler, carry user actions. */
@Singleton
public class ControlPlane {
  private static final Logger log = LoggerFactory.getLogger(ControlPlane.class);

  private final WorkflowClient client;
  private final ExecutorService queries;
  private final SchedulerWaker waker;
  private final ControlWorkflows workflows;
  /** Workflow starts of a batch in flight at once: enough to keep the server busy, not a thread per VM. */
  private final ExecutorService starters = Executors.newFixedThreadPool(16, r -> {
    Thread t = new Thread(r, "workflow-starter");
    t.setDaemon(true);
    return t;
  });

  public ControlPlane(
      WorkflowClient client,
      @Named(TaskExecutors.BLOCKING) ExecutorService queries,
      SchedulerWaker waker,
      ControlWorkflows workflows) {
    this.client = client;
    this.queries = queries;
    this.waker = waker;
    this.workflows = workflows;
  }

  /** Starts the VM's workflow; 409 if one is still open under its name (a delete in progress). */
  public void startVm(VmRow vm) {
    try {
      workflows.startVm(vm, false);
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw Problems.conflict("VM '" + vm.name() + "' is still being deleted; try again shortly");
    }
  }

  /**
   * Starts every VM's workflow, several at a time; when one does not start, {@code undo} is told which
   * and why once the rest are done, and what it returns is thrown.
   */
  public void startVms(List<VmRow> vms, BiFunction<VmRow, RuntimeException, RuntimeException> undo) {
    List<Future<?>> starts = new ArrayList<>(vms.size());
    for (VmRow vm : vms) {
      starts.add(starters.submit(() -> startVm(vm)));
    }
    VmRow failed = null;
    RuntimeException cause = null;
    for (int i = 0; i < starts.size(); i++) {
      try {
        starts.get(i).get();
      } catch (ExecutionException e) {
        if (failed == null) {
          failed = vms.get(i);
          cause = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting workflows", e);
      }
    }
    if (failed != null) {
      throw undo.apply(failed, cause);
    }
  }

  @jakarta.annotation.PreDestroy
  void close() {
    starters.shutdownNow();
  }

  /** Makes sure the VM has its workflow, joining the one that is open (a host restoring VMs at start). */
  public void ensureVm(VmRow vm) {
    workflows.startVm(vm, true);
  }

  /** Starts the set's workflow; 409 if one is still open under its name (a delete in progress). */
  public void startSet(String name, int replicas) {
    try {
      workflows.startSet(name, replicas, false);
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw Problems.conflict("VM set '" + name + "' is still being deleted; try again shortly");
    }
  }

  /** Makes sure the set has its workflow, joining the one that is open. */
  public void ensureSet(String name, int replicas) {
    workflows.startSet(name, replicas, true);
  }

  /** Tells the set's workflow its row changed, starting it if it has none (its host died before it could). */
  public void setChanged(String name, int replicas) {
    if (!workflows.setChanged(name)) {
      ensureSet(name, replicas);
    }
  }

  /**
   * Asks the scheduler for a term now. Best effort: if the signal is lost the next term still comes
   * within the interval.
   */
  public void wakeScheduler(String reason) {
    waker.wake(reason);
  }

  /**
   * The scheduler's own account of its last term, if it answers within {@code deadline}: the query
   * can hang while the workflow continues as new on the embedded server, so the API never waits on it
   * for long and falls back to the database.
   */
  public Optional<TermSummary> lastTerm(Duration deadline) {
    CompletableFuture<TermSummary> query =
        CompletableFuture.supplyAsync(
            () -> client.newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID).lastTerm(), queries);
    try {
      return Optional.ofNullable(query.get(deadline.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      query.cancel(true);
      return Optional.empty();
    } catch (ExecutionException e) {
      log.debug("lastTerm query failed: {}", e.getCause().toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Runs a user action as a workflow update: the workflow decides, and a refusal is a 409. */
  public String act(String vmName, Function<VmWorkflow, String> action) {
    VmWorkflow vm = client.newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vmName));
    try {
      return action.apply(vm);
    } catch (WorkflowUpdateException e) {
      // The VM workflow's validators refuse only what its status does not allow. The failure's
      // type does not survive a validator, so the refusal is known by its place, not its type.
      if (e.getCause() instanceof ApplicationFailure failure) {
        throw Problems.conflict(failure.getOriginalMessage());
      }
      throw e;
    } catch (WorkflowNotFoundException e) {
      throw Problems.unavailable("VM '" + vmName + "' has no running workflow; the host restores it at start");
    }
  }

  /** Asks the VM's workflow to delete it; false if it has no open workflow. */
  public boolean requestDelete(String vmName) {
    return workflows.requestVmDelete(vmName);
  }
}
