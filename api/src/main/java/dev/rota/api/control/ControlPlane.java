package dev.rota.api.control;

import dev.rota.api.problem.Problems;
import dev.rota.control.ControlWorkflows;
import dev.rota.control.VmWorkflowStarter;
import dev.rota.control.WorkflowKeeper;
import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.TemporalDeadlines;
import dev.rota.store.VmRow;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermSummary;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Functions;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the API asks of the workflows: start a VM's or a set's, wake the scheduler, carry user
 * actions.
 */
@Singleton
public class ControlPlane {
  private static final Logger log = LoggerFactory.getLogger(ControlPlane.class);

  private final WorkflowClient client;
  private final SchedulerWaker waker;
  private final ControlWorkflows workflows;
  private final VmWorkflowStarter starter;
  private final WorkflowKeeper keeper;
  private final TemporalDeadlines deadlines;
  private final Duration actionWait;

  /**
   * How long a request waits on Temporal: for a workflow to start or take a signal, for a VM's
   * workflow to accept (or refuse) a user action. The SDK would retry an unreachable server for a
   * minute; with the server down the request answers 503 after this.
   */
  static final Duration TEMPORAL_DEADLINE = Duration.ofSeconds(5);

  /**
   * Runs the calls to Temporal a request waits on with a deadline (the scheduler's query, a VM
   * action's update), so that the request stops waiting while the call goes on: bounded itself.
   */
  private final dev.rota.scheduler.term.VmNotifier notifier;

  private final dev.rota.store.OutboxRepository outbox;

  private final ExecutorService calls =
      new java.util.concurrent.ThreadPoolExecutor(
          4,
          32,
          30,
          TimeUnit.SECONDS,
          new java.util.concurrent.ArrayBlockingQueue<>(256),
          DaemonThreads.named("temporal-call"));

  /**
   * @param actionWait how long a user action waits for its VM's workflow to carry it out before the
   *     API answers 202 anyway ({@code rota.api.action-wait}): the workflow has accepted it, and
   *     may be busy, e.g. retrying a call to an agent that does not answer
   */
  public ControlPlane(
      WorkflowClient client,
      SchedulerWaker waker,
      ControlWorkflows workflows,
      VmWorkflowStarter starter,
      WorkflowKeeper keeper,
      TemporalDeadlines deadlines,
      dev.rota.scheduler.term.VmNotifier notifier,
      dev.rota.store.OutboxRepository outbox,
      @io.micronaut.context.annotation.Value("${rota.api.action-wait:2s}") Duration actionWait) {
    this.notifier = notifier;
    this.outbox = outbox;
    this.starter = starter;
    this.keeper = keeper;
    this.deadlines = deadlines;
    this.actionWait = actionWait;
    this.client = client;
    this.waker = waker;
    this.workflows = workflows;
  }

  @jakarta.annotation.PreDestroy
  void close() {
    calls.shutdownNow();
  }

  /**
   * Makes sure the VM has its workflow, joining the one that is open (a host restoring VMs at
   * start).
   */
  public void ensureVm(VmRow vm) {
    workflows.startVm(vm, true);
  }

  /** Starts the set's workflow; 409 if one is still open under its name (a delete in progress). */
  public void startSet(String name, int replicas) {
    try {
      bounded(() -> workflows.startSet(name, replicas, false));
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw Problems.conflict("VM set '" + name + "' is still being deleted; try again shortly");
    }
  }

  /** Makes sure the set has its workflow, joining the one that is open. */
  public void ensureSet(String name, int replicas) {
    workflows.startSet(name, replicas, true);
  }

  /**
   * Tells the set's workflow its row changed, starting it if it has none (its host died before it
   * could).
   */
  public void setChanged(String name, int replicas) {
    bounded(
        () -> {
          if (!workflows.setChanged(name)) {
            ensureSet(name, replicas);
          }
        });
  }

  /**
   * Asks the scheduler for a term now. Best effort: if the signal is lost the next term still comes
   * within the interval.
   */
  public void wakeScheduler(String reason) {
    bounded(() -> waker.wake(reason));
  }

  /**
   * Asks for a term now without waiting: a submission wakes the scheduler while its VMs' workflows
   * start, so that the term places them meanwhile (their news waits in the outbox until the
   * workflows are there), and a burst of submissions runs sooner.
   */
  public void wakeSchedulerMeanwhile(String reason) {
    try {
      calls.execute(() -> wakeScheduler(reason));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("not waking the scheduler ({}): too many calls to Temporal under way", reason);
    }
  }

  /**
   * How long the scheduler's answer is reused; and how long a query may stay unanswered before
   * another.
   */
  static final Duration TERM_FRESH = Duration.ofSeconds(1);

  static final Duration TERM_QUERY_GIVEN_UP = Duration.ofSeconds(10);

  private final Object termLock = new Object();

  /**
   * The query under way, when it began, and the last answer and when it came; guarded by termLock.
   */
  private Future<TermSummary> termQuery;

  private long termQueryAt;
  private TermSummary lastAnswer;
  private long lastAnswerAt;

  /**
   * The scheduler's own account of its last term, if it answers within {@code deadline}: the query
   * can hang while the workflow continues as new on the embedded server, so the API never waits on
   * it for long and falls back to the database. A query takes the workflow's lock as its tasks do:
   * however many clients ask (a thousand at once made the scheduler's own task wait past its
   * timeout), a host asks one query at a time and reuses the answer for {@link #TERM_FRESH}.
   */
  public Optional<TermSummary> lastTerm(Duration deadline) {
    Future<TermSummary> query;
    synchronized (termLock) {
      long now = System.nanoTime();
      if (lastAnswer != null && now - lastAnswerAt < TERM_FRESH.toNanos()) {
        return Optional.of(lastAnswer);
      }
      if (termQuery != null
          && !termQuery.isDone()
          && now - termQueryAt > TERM_QUERY_GIVEN_UP.toNanos()) {
        termQuery.cancel(true);
      }
      if (termQuery == null || termQuery.isDone()) {
        try {
          termQuery = calls.submit(this::askScheduler);
          termQueryAt = now;
        } catch (java.util.concurrent.RejectedExecutionException e) {
          return Optional.empty();
        }
      }
      query = termQuery;
    }
    try {
      return Optional.ofNullable(query.get(deadline.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException | java.util.concurrent.CancellationException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      log.debug("lastTerm query failed: {}", e.getCause().toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private TermSummary askScheduler() {
    TermSummary answer =
        client.newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID).lastTerm();
    synchronized (termLock) {
      lastAnswer = answer;
      lastAnswerAt = System.nanoTime();
    }
    return answer;
  }

  /**
   * Runs a user action as a workflow update: the workflow decides, and a refusal is a 409. Once the
   * workflow has accepted it, the action is in its history and will happen: the call waits for it
   * up to {@code actionWait}, then returns, so that a workflow busy with something slow does not
   * hold the request (and its thread).
   */
  public void act(String vmName, Function<VmWorkflow, Functions.Func<String>> action) {
    act(vmName, action, true);
  }

  /**
   * Tells the VM's workflow the news still in the outbox before it judges a user's action: the row
   * the user read (an agent's report of a start writes it at once) may be ahead of the workflow,
   * which would otherwise refuse, say, a restart of the VM the API shows running as "pending". Best
   * effort: news not told now is told by its report's thread or the next term, and a workflow
   * applies each event once.
   */
  private void catchUp(String vmName) {
    try {
      outbox
          .newestNews(vmName)
          .ifPresent(
              news -> {
                java.util.List<Long> told = notifier.notify(news);
                if (!told.isEmpty()) {
                  outbox.doneAll(told);
                }
              });
    } catch (RuntimeException e) {
      log.debug("could not tell VM {}'s workflow its news first: {}", vmName, e.toString());
    }
  }

  /**
   * {@link #act}; a VM whose workflow has yet to start (submitted a moment ago) is asked again once
   * it has.
   */
  private void act(
      String vmName, Function<VmWorkflow, Functions.Func<String>> action, boolean mayStart) {
    catchUp(vmName);
    VmWorkflow vm = client.newWorkflowStub(VmWorkflow.class, VmWorkflow.workflowId(vmName));
    WorkflowUpdateHandle<String> accepted;
    try {
      accepted =
          within(
              TEMPORAL_DEADLINE,
              () ->
                  WorkflowClient.startUpdate(
                      action.apply(vm),
                      UpdateOptions.<String>newBuilder()
                          .setWaitForStage(WorkflowUpdateStage.ACCEPTED)
                          .build()));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      throw Problems.unavailable("too many calls to Temporal waiting; try again shortly");
    } catch (TimeoutException e) {
      // An update to a workflow that has just closed (its VM deleted) is never answered by the
      // embedded server; the real one refuses it at once.
      if (closed(VmWorkflow.workflowId(vmName))) {
        throw Problems.conflict("VM '" + vmName + "' is being deleted");
      }
      throw Problems.unavailable(
          "the workflow of VM '"
              + vmName
              + "' did not take the action within "
              + TEMPORAL_DEADLINE.toSeconds()
              + " s; nothing was done, try again");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Problems.unavailable("interrupted while asking the workflow of VM '" + vmName + "'");
    } catch (ExecutionException e) {
      if (mayStart && e.getCause() instanceof WorkflowNotFoundException) {
        // Owed (submitted a moment ago: or the start under way here has made it meanwhile), or lost
        // by
        // Temporal (a server started afresh, a terminate): either way, from its row.
        if (!starter.startIfOwed(vmName)) {
          keeper.restoreVm(vmName);
        }
        act(vmName, action, false);
        return;
      }
      throw answer(vmName, e.getCause());
    }
    try {
      accepted.getResultAsync().get(actionWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.debug("vm {}: action accepted, not carried out within {}", vmName, actionWait);
    } catch (ExecutionException e) {
      // A validator's refusal comes back as the update's outcome, at once.
      throw answer(vmName, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The call's answer if it comes within {@code deadline}; else it is cancelled and this throws.
   */
  private <T> T within(Duration deadline, java.util.concurrent.Callable<T> call)
      throws TimeoutException, ExecutionException, InterruptedException {
    Future<T> answer = calls.submit(call);
    try {
      return answer.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      answer.cancel(true);
      throw e;
    }
  }

  private boolean closed(String workflowId) {
    try {
      var described =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(
                  io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setExecution(
                          io.temporal.api.common.v1.WorkflowExecution.newBuilder()
                              .setWorkflowId(workflowId))
                      .build());
      return described.getWorkflowExecutionInfo().getStatus()
          != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** What the API answers when asking a VM's workflow failed. */
  private static RuntimeException answer(String vmName, Throwable failure) {
    if (failure instanceof WorkflowUpdateException refused) {
      // The VM workflow's validators refuse only what its status does not allow. The failure's
      // type does not survive a validator, so the refusal is known by its place, not its type.
      return refused.getCause() instanceof ApplicationFailure f
          ? Problems.conflict(f.getOriginalMessage())
          : refused;
    }
    if (failure instanceof WorkflowNotFoundException) {
      return Problems.unavailable(
          "VM '"
              + vmName
              + "' has no running workflow and none could be started; try again shortly");
    }
    return failure instanceof RuntimeException r ? r : new IllegalStateException(failure);
  }

  /** Asks the VM's workflow to delete it; false if it has no open workflow. */
  public boolean requestDelete(String vmName) {
    return bounded(() -> workflows.requestVmDelete(vmName));
  }

  /**
   * Runs calls to Temporal on this thread with a gRPC deadline of {@link #TEMPORAL_DEADLINE}, which
   * the SDK's retries honour: past it, the call fails with DEADLINE_EXCEEDED (a 503).
   */
  private <T> T bounded(java.util.function.Supplier<T> calls) {
    return deadlines.within(TEMPORAL_DEADLINE, calls);
  }

  private void bounded(Runnable calls) {
    bounded(
        () -> {
          calls.run();
          return null;
        });
  }
}
