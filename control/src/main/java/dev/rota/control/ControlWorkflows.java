package dev.rota.control;

import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.settings.SchedulerSettings;
import dev.rota.scheduler.settings.VmSettings;
import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.scheduler.temporal.WorkflowStubs;
import dev.rota.store.VmRow;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.WorkflowDefaults;
import dev.rota.workflows.cluster.ClusterState;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermSummary;
import dev.rota.workflows.vm.VmWorkflow;
import dev.rota.workflows.vmset.VmSetWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.SearchAttributes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Functions;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way into Temporal for the VMs' and sets' lifecycles: starting and signalling the
 * scheduler's, the VM and the VM-set workflows, carrying a user's action to a VM's workflow, and
 * asking the scheduler for its last term. Whoever stores a VM or a set (the API, a set's workflow)
 * or restores them (a host at start, {@link WorkflowKeeper}) comes here. What Temporal answers is
 * turned into what it means for the caller: {@link Refused} when a workflow says no, {@link
 * NotAnswered} when Temporal does not answer in time.
 *
 * <p>Calls a caller waits on are bounded by {@link #TEMPORAL_DEADLINE}: the SDK would retry an
 * unreachable server for a minute, and a request or an activity has better to do. A host's own
 * restores, which must get through, are not.
 */
@Singleton
public class ControlWorkflows {
  private static final Logger log = LoggerFactory.getLogger(ControlWorkflows.class);

  /**
   * How long a caller waits on Temporal: for a workflow to start or take a signal, for a VM's
   * workflow to accept (or refuse) a user action.
   */
  public static final Duration TEMPORAL_DEADLINE = Duration.ofSeconds(5);

  /**
   * How long the scheduler's answer is reused; and how long a query may stay unanswered before
   * another.
   */
  static final Duration TERM_FRESH = Duration.ofSeconds(1);

  static final Duration TERM_QUERY_GIVEN_UP = Duration.ofSeconds(10);

  private final WorkflowStubs stubs;
  private final VmSettings settings;
  private final SchedulerSettings scheduler;
  private final SchedulerWaker waker;
  private final TemporalDeadlines deadlines;
  private final Duration actionWait;

  /**
   * Runs the calls a caller waits on with a deadline of its own (the scheduler's query, a VM
   * action's update), so that the caller stops waiting while the call goes on: bounded itself.
   */
  private final ExecutorService calls =
      new ThreadPoolExecutor(
          4,
          32,
          30,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(256),
          DaemonThreads.named("temporal-call"));

  /** The newest reason asked: the wake-up made for several names the last. */
  private final java.util.concurrent.atomic.AtomicReference<String> wakeReason =
      new java.util.concurrent.atomic.AtomicReference<>();

  /**
   * The wake-ups asked without waiting: a burst of single submissions, each asking, costs a
   * wake-up's database claim and signal once per wake-up under way, not once each.
   */
  private final OnceMore wakes = new OnceMore(calls, () -> wakeScheduler(wakeReason.get()));

  /**
   * The scheduler's account of its last term: the query takes the workflow's lock as its tasks do,
   * so however many ask (a thousand at once made the scheduler's own task wait past its timeout), a
   * host asks one query at a time.
   */
  private final SharedAnswer<TermSummary> lastTerm;

  /**
   * @param actions how long a user action waits for its VM's workflow to carry it out before the
   *     caller is answered anyway: the workflow has accepted it, and may be busy, e.g. retrying a
   *     call to an agent that does not answer
   */
  public ControlWorkflows(
      WorkflowStubs stubs,
      VmSettings settings,
      SchedulerSettings scheduler,
      SchedulerWaker waker,
      TemporalDeadlines deadlines,
      ActionSettings actions) {
    this.stubs = stubs;
    this.settings = settings;
    this.scheduler = scheduler;
    this.waker = waker;
    this.deadlines = deadlines;
    this.actionWait = actions.actionWait();
    this.lastTerm =
        new SharedAnswer<>(
            () -> stubs.scheduler().lastTerm(), calls, TERM_FRESH, TERM_QUERY_GIVEN_UP);
  }

  @PreDestroy
  void close() {
    calls.shutdownNow();
  }

  /**
   * Starts the scheduler's workflow, or joins the run another host started: USE_EXISTING makes
   * Temporal's one-open-run-per-id rule the leader election.
   */
  public WorkflowExecution startScheduler() {
    ClusterWorkflow cluster =
        stubs
            .client()
            .newWorkflowStub(
                ClusterWorkflow.class,
                ClusterWorkflow.startOptions()
                    .setStaticSummary("Rota scheduler: observe, health, place, reconcile")
                    .setStaticDetails(
                        "One term at least every "
                            + scheduler.interval().toMillis()
                            + " ms, sooner on a wake-up signal; a term that changes nothing runs as the next attempt of"
                            + " the pending term activity. Query `lastTerm` for the last term that changed something.")
                    .build());
    return WorkflowClient.start(cluster::run, ClusterState.initial());
  }

  /** The open workflows a visibility {@code query} finds (none where the server cannot list). */
  public List<io.temporal.api.common.v1.WorkflowExecution> open(String query) {
    List<io.temporal.api.common.v1.WorkflowExecution> open = new ArrayList<>();
    stubs.client().listExecutions(query).forEach(w -> open.add(w.getExecution()));
    return open;
  }

  /** Ends one run of a workflow, saying {@code why} in its history. */
  public void terminate(io.temporal.api.common.v1.WorkflowExecution run, String why) {
    stubs
        .client()
        .newUntypedWorkflowStub(run.getWorkflowId(), Optional.of(run.getRunId()), Optional.empty())
        .terminate(why);
  }

  /**
   * Whether the scheduler's workflow has an open run; false when it has none or ended (terminated,
   * failed).
   */
  public boolean schedulerRuns() {
    try {
      return stubs
              .client()
              .newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID)
              .describe()
              .getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  /**
   * Starts the VM's workflow. With {@code joinOpen} false, a workflow still open under its name (a
   * delete in progress) is {@link io.temporal.client.WorkflowExecutionAlreadyStarted}; with true it
   * is joined: what a host does at start, when the embedded server has forgotten every workflow but
   * the database remembers every VM. A VM just submitted is handed to its workflow as stored, so
   * that its first run reads nothing back; a joined or restored one reads the store, which may be
   * newer.
   */
  public void startVm(VmRow vm, boolean joinOpen) {
    VmWorkflow stub = vmStarter(vm, joinOpen);
    WorkflowClient.start(
        stub::run, vm.name(), null, joinOpen ? null : VmActivitiesImpl.record(vm, settings));
  }

  /** A stub that starts the VM's workflow (or, with {@code joinOpen}, joins its open run). */
  private VmWorkflow vmStarter(VmRow vm, boolean joinOpen) {
    return stubs
        .client()
        .newWorkflowStub(
            VmWorkflow.class,
            options(VmWorkflow.workflowId(vm.name()), joinOpen)
                .setTypedSearchAttributes(searchAttributes(vm))
                .setStaticSummary(VmSummary.of(vm))
                .setStaticDetails(vmDetails(vm.name()))
                .setMemo(java.util.Map.of(VmWorkflow.SUBMISSION, vm.seq()))
                .build());
  }

  /**
   * What a VM's run starts with: its status, worker and restarts as stored, and its set's name if
   * it is a replica.
   */
  private SearchAttributes searchAttributes(VmRow vm) {
    return RotaSearchAttributes.atStart(
        VmActivitiesImpl.record(vm, settings), vm.membership().vmSet());
  }

  /**
   * Whether the VM's open workflow is the one of submission {@code seq} (started by an earlier try,
   * here or on another host), rather than one of a VM deleted under the same name that is still
   * closing.
   */
  public boolean openFor(String vmName, long seq) {
    try {
      Object memo =
          stubs
              .client()
              .newUntypedWorkflowStub(VmWorkflow.workflowId(vmName))
              .describe()
              .getMemo(VmWorkflow.SUBMISSION, Long.class);
      return memo instanceof Long s && s == seq;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  /** What the Temporal UI shows under Details for every VM workflow: where to look next. */
  static String vmDetails(String name) {
    return "Lifecycle of VM `"
        + name
        + "`: pending, scheduled, running; failed or stopped; restarts by its policy.\n\n"
        + "- Current details: its status, worker, restart count and readiness\n"
        + "- Query `status`; search attributes `RotaVmStatus`, `RotaWorker`, `RotaVmSet`,"
        + " `RotaRestarts`, `RotaLastExit`\n"
        + "- Its events: `GET /v1/vms/"
        + name
        + "/events`";
  }

  /**
   * Asks the VM's workflow to delete it, beginning a run for it when none is open (the VM stopped
   * or failed for good, and its last run ended with it): the run removes what is left of the VM and
   * shows it deleted.
   */
  public void deleteVm(VmRow vm) {
    bounded(
        () ->
            WorkflowStub.fromTyped(vmStarter(vm, true))
                .signalWithStart("delete", new Object[0], new Object[] {vm.name(), null, null}));
  }

  /** Asks the VM's workflow to delete it; false if it has no open workflow. */
  public boolean requestVmDelete(String vmName) {
    return bounded(
        () ->
            signalIfOpen(
                () ->
                    stubs
                        .client()
                        .newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vmName))
                        .delete()));
  }

  /**
   * Ends the VM's open run, saying {@code why}, without a step of its own: a pool replica claimed
   * as a user's VM, whose life the new name's workflow goes on with. False if it had none.
   */
  public boolean endVm(String vmName, String why) {
    return bounded(
        () ->
            signalIfOpen(
                () ->
                    stubs
                        .client()
                        .newUntypedWorkflowStub(VmWorkflow.workflowId(vmName))
                        .terminate(why)));
  }

  /** How many VM workflows {@link #endVms} ends at once. */
  static final int ENDING_AT_ONCE = 8;

  /**
   * Ends the open runs of {@code vmNames}, saying {@code why}, {@link #ENDING_AT_ONCE} at a time,
   * starting no call once {@code budget} has passed: the VMs of a set deleted together. Answers,
   * for each name it called for, whether an open run was ended (false: it had none, or the call
   * failed, Temporal away); a name left out was not reached within the budget.
   */
  public Map<String, Boolean> endVms(Collection<String> vmNames, String why, Duration budget) {
    long until = System.nanoTime() + budget.toNanos();
    ExecutorService ending =
        Executors.newFixedThreadPool(
            Math.max(1, Math.min(ENDING_AT_ONCE, vmNames.size())),
            DaemonThreads.numbered("vm-workflow-end"));
    try {
      Map<String, Future<Boolean>> calls = new LinkedHashMap<>();
      for (String name : vmNames) {
        calls.put(
            name, ending.submit(() -> System.nanoTime() - until > 0 ? null : endVm(name, why)));
      }
      Map<String, Boolean> ended = new LinkedHashMap<>();
      for (Map.Entry<String, Future<Boolean>> call : calls.entrySet()) {
        try {
          Boolean open = call.getValue().get();
          if (open != null) {
            ended.put(call.getKey(), open);
          }
        } catch (ExecutionException e) {
          log.debug("VM {}'s workflow not ended now: {}", call.getKey(), e.getCause().toString());
          ended.put(call.getKey(), false);
        }
      }
      return ended;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while ending VM workflows", e);
    } finally {
      ending.shutdownNow();
    }
  }

  /**
   * Starts the workflow of a set just stored; {@link Refused} if one is still open under its name
   * (a delete in progress).
   */
  public void startSet(String setName, int replicas) {
    try {
      bounded(
          () -> {
            startSet(setName, replicas, false);
            return null;
          });
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw new Refused("VM set '" + setName + "' is still being deleted; try again shortly");
    }
  }

  /** Makes sure the set has its workflow, joining the one that is open. */
  public void ensureSet(String setName, int replicas) {
    startSet(setName, replicas, true);
  }

  /** Starts the set's workflow; {@code joinOpen} as for {@link #startVm}. */
  private void startSet(String setName, int replicas, boolean joinOpen) {
    VmSetWorkflow stub =
        stubs
            .client()
            .newWorkflowStub(
                VmSetWorkflow.class,
                options(VmSetWorkflow.workflowId(setName), joinOpen)
                    .setStaticSummary(
                        "VM set " + setName + ": " + replicas + " replicas when created")
                    .setStaticDetails(
                        "Keeps the replicas `"
                            + setName
                            + "-0` … matching `GET /v1/vm-sets/"
                            + setName
                            + "`: submits the missing, deletes the surplus (highest ordinals first); looks again on every change to the set or its replicas, and every hour."
                            + "\n\n- Current details: its last pass\n- Query `progress`")
                    .build());
    WorkflowClient.start(stub::run, setName);
  }

  /** Tells the set's workflow to look again now; false if it has no open workflow. */
  public boolean setChanged(String setName) {
    return bounded(
        () ->
            signalIfOpen(
                () ->
                    stubs
                        .client()
                        .newWorkflowStub(VmSetWorkflow.class, VmSetWorkflow.workflowId(setName))
                        .changed()));
  }

  /**
   * Tells the set's workflow its row changed, starting it if it has none (its host died before it
   * could).
   */
  public void tellSet(String setName, int replicas) {
    if (!setChanged(setName)) {
      bounded(
          () -> {
            ensureSet(setName, replicas);
            return null;
          });
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
   * Asks for a term now without waiting: a submission wakes the scheduler while its VMs' workflows
   * start, so that the term places them meanwhile (their news waits in the outbox until the
   * workflows are there), and a burst of submissions runs sooner.
   */
  public void wakeSchedulerMeanwhile(String reason) {
    wakeReason.set(reason);
    try {
      wakes.ask();
    } catch (RejectedExecutionException e) {
      log.debug("not waking the scheduler ({}): too many calls to Temporal under way", reason);
    }
  }

  /**
   * The scheduler's own account of its last term, if it answers within {@code deadline}: the query
   * can hang while the workflow continues as new on the embedded server, so a caller never waits on
   * it for long and falls back to the database.
   */
  public Optional<TermSummary> lastTerm(Duration deadline) {
    return lastTerm.get(deadline);
  }

  /**
   * Carries a user's action to the VM's workflow as an update: the workflow decides, and a refusal
   * is {@link Refused}. Once the workflow has accepted it, the action is in its history and will
   * happen: this waits for it up to {@code actionWait}, then returns, so that a workflow busy with
   * something slow does not hold the caller (and its thread).
   *
   * @return false if the VM has no open workflow to take it
   */
  public boolean act(String vmName, Function<VmWorkflow, Functions.Func<String>> action) {
    VmWorkflow vm = stubs.vm(vmName);
    return carry(vmName, () -> WorkflowClient.startUpdate(action.apply(vm), accepted()));
  }

  /**
   * Carries a user's action to the VM as {@link #act} does, beginning a run of its workflow when
   * none is open (its last run ended with the VM stopped or failed): update-with-start, so that the
   * run begun sees the action in its first task and cannot end before it.
   */
  public void actWithStart(VmRow row, Function<VmWorkflow, Functions.Func<String>> action) {
    VmWorkflow vm = vmStarter(row, true);
    if (!carry(
        row.name(),
        () ->
            WorkflowClient.startUpdateWithStart(
                action.apply(vm),
                accepted(),
                new WithStartWorkflowOperation<>(vm::run, row.name(), null, null)))) {
      throw new NotAnswered("the workflow of VM '" + row.name() + "' could not be started");
    }
  }

  private static UpdateOptions<String> accepted() {
    return UpdateOptions.<String>newBuilder().setWaitForStage(WorkflowUpdateStage.ACCEPTED).build();
  }

  private boolean carry(String vmName, Callable<WorkflowUpdateHandle<String>> send) {
    WorkflowUpdateHandle<String> accepted;
    try {
      accepted = within(TEMPORAL_DEADLINE, send);
    } catch (RejectedExecutionException e) {
      throw new NotAnswered("too many calls to Temporal waiting; try again shortly");
    } catch (TimeoutException e) {
      // An update to a run that has just ended may go unanswered rather than refused.
      if (closed(VmWorkflow.workflowId(vmName))) {
        return false;
      }
      throw new NotAnswered(
          "the workflow of VM '"
              + vmName
              + "' did not take the action within "
              + TEMPORAL_DEADLINE.toSeconds()
              + " s; nothing was done, try again");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NotAnswered("interrupted while asking the workflow of VM '" + vmName + "'");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof WorkflowNotFoundException) {
        return false;
      }
      throw refusal(e.getCause());
    }
    try {
      accepted.getResultAsync().get(actionWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.debug("vm {}: action accepted, not carried out within {}", vmName, actionWait);
    } catch (ExecutionException e) {
      // A validator's refusal comes back as the update's outcome, at once.
      throw refusal(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** What asking a VM's workflow failed with means for the caller. */
  private static RuntimeException refusal(Throwable failure) {
    if (failure instanceof WorkflowUpdateException refused) {
      // The VM workflow's validators refuse only what its status does not allow. The failure's
      // type does not survive a validator, so the refusal is known by its place, not its type.
      return refused.getCause() instanceof ApplicationFailure f
          ? new Refused(f.getOriginalMessage())
          : refused;
    }
    return failure instanceof RuntimeException r ? r : new IllegalStateException(failure);
  }

  private boolean closed(String workflowId) {
    try {
      return stubs.client().newUntypedWorkflowStub(workflowId).describe().getStatus()
          != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * The call's answer if it comes within {@code deadline}; else it is cancelled and this throws.
   */
  private <T> T within(Duration deadline, Callable<T> call)
      throws TimeoutException, ExecutionException, InterruptedException {
    Future<T> answer = calls.submit(call);
    try {
      return answer.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      answer.cancel(true);
      throw e;
    }
  }

  /**
   * Runs calls to Temporal on this thread with a gRPC deadline of {@link #TEMPORAL_DEADLINE}, which
   * the SDK's retries honour: past it, the call fails with DEADLINE_EXCEEDED.
   */
  private <T> T bounded(Supplier<T> calls) {
    return deadlines.within(TEMPORAL_DEADLINE, calls);
  }

  /** Sends a signal; false if the workflow has no open run to take it. */
  private static boolean signalIfOpen(Runnable signal) {
    try {
      signal.run();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  private static WorkflowOptions.Builder options(String workflowId, boolean joinOpen) {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowTaskTimeout(WorkflowDefaults.WORKFLOW_TASK_TIMEOUT)
        .setWorkflowIdConflictPolicy(
            joinOpen
                ? WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
                : WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL);
  }
}
