package dev.rota.workflows.vm;

import dev.rota.agentapi.TaskId;
import dev.rota.lifecycle.ActionRule;
import dev.rota.lifecycle.EventRule;
import dev.rota.lifecycle.HeardReadiness;
import dev.rota.lifecycle.HeldTasks;
import dev.rota.lifecycle.RestartRule;
import dev.rota.lifecycle.RunRule;
import dev.rota.lifecycle.TaskHeard;
import dev.rota.lifecycle.UserAction;
import dev.rota.lifecycle.VmLife;
import dev.rota.model.RestartPolicy;
import dev.rota.model.TaskEventType;
import dev.rota.model.VmStatus;
import dev.rota.model.WireName;
import dev.rota.workflows.ActivityDefaults;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.Timers;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * One VM's life. The scheduler places it and reports its task (signal {@code observed}); users
 * stop, start and restart it (updates, decided here: a refusal changes nothing) and delete it
 * (signal). All of it is queued and carried out by one loop, in order, so that there is one writer
 * of the VM's lifecycle. A task that ends is restarted as its policy says, after a delay counted
 * from the end and doubling on each failure in a row. The scheduler may move a running replica
 * (event {@code moved}): the VM stays running on its old task, at the next generation, until the
 * new copy has started. When its worker's drain deadline passes with the task still there (event
 * {@code drained}), it stops, or with a restart policy starts again elsewhere.
 */
public class VmWorkflowImpl implements VmWorkflow {
  /** What {@code RotaVmStatus} says of a VM that was deleted (its workflow is closed). */
  public static final String DELETED = "deleted";

  private static final ActivityOptions STORE = ActivityDefaults.store(Duration.ofMinutes(1));

  /**
   * Past this many events an idle run hands its state to a new one (continue-as-new): a VM that
   * restarts every few seconds for a year would otherwise reach Temporal's limit on a history.
   */
  static final int HISTORY_LIMIT = 1_000;

  /**
   * Removing a task gives up after a few minutes: the reconciler removes it once the agent answers.
   */
  private static final ActivityOptions AGENT =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setSummary("remove the task from its worker")
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setBackoffCoefficient(2)
                  .setMaximumInterval(Duration.ofSeconds(30))
                  .setMaximumAttempts(8)
                  .build())
          .build();

  /**
   * The VM's activities, the call's summary what it records or does, so that the Temporal UI reads
   * as the VM's life ("restart 2 scheduled for …", "failed: exited with code 3"). A stub is cheap;
   * one a call.
   */
  private static VmActivities saying(String summary) {
    return Workflow.newActivityStub(
        VmActivities.class,
        ActivityOptions.newBuilder(STORE).setSummary(summary).build(),
        Map.of("RemoveTask", ActivityOptions.newBuilder(AGENT).setSummary(summary).build()));
  }

  private static void recordStatus(VmActivities.StatusChange change) {
    saying(change.status() + ": " + change.message()).recordStatus(change);
  }

  private static void recordEvent(VmActivities.VmEvent event) {
    saying(event.message()).recordEvent(event);
  }

  private sealed interface Command {}

  private record Act(UserAction action, CompletablePromise<String> done) implements Command {}

  private record Delete() implements Command {}

  private record Hear(TaskEvent event) implements Command {}

  private final String name;

  /** The submission this run is for ({@link VmWorkflow#SUBMISSION}); 0 when started without it. */
  private final long submission;

  private final Deque<Command> commands = new ArrayDeque<>();
  private VmStatus status = VmStatus.PENDING;
  private String worker;
  private int restartCount;
  private RestartRule.Settings restarts =
      new RestartRule.Settings(
          RestartPolicy.NEVER, Duration.ofSeconds(15), Duration.ofMinutes(5), null, Duration.ZERO);

  private RestartRule.Count count = RestartRule.Count.NONE;

  private long startedAtMillis;
  private long scheduledAtMillis;
  private long finishedAtMillis;
  private Integer exitCode;
  private String message;

  /** The last task event applied; events are applied in the order of their ids, each once. */
  private long lastTaskEventId;

  /** Whether a task event changed the lifecycle since it was last recorded. */
  private boolean unrecorded;

  /** When a scheduled restart is due, epoch milliseconds; 0 when none is. */
  private long restartAtMillis;

  private boolean deleteRequested;

  /** What it heard its readiness check say, shown in its summary while it runs. */
  private HeardReadiness readiness = HeardReadiness.none(false);

  /** A keyword is matched whole: the start of a reason is what a query can name. */
  private static final int LAST_EXIT_LENGTH = 80;

  /** How this run's last task ended ({@link #howItEnded()}); null until one has. */
  private String lastEnd;

  /**
   * While a move's new copy starts: the worker the previous generation's task still runs on; else
   * null.
   */
  private String movingFrom;

  /** While moving, the worker the new copy is placed on; null until it is (again) placed. */
  private String movingTo;

  /** Whether the stored state is loaded; until then only the loop can judge an action. */
  private boolean loaded;

  /** How long after it finished the VM is deleted; null: kept. */
  private Integer ttlSecondsAfterFinished;

  /** When it last became finished (stopped, or failed for good); 0 while it is not. */
  private long finishedSinceMillis;

  /**
   * Whether the status shown in the search attributes lags what was heard: what a workflow task
   * heard is shown in one upsert at its end (a submitted VM's first task heard its placing and its
   * start: one upsert each was a visibility write each for the server).
   */
  private boolean showPending;

  /** Runs before any handler, so that an update in the first workflow task knows the VM. */
  @WorkflowInit
  public VmWorkflowImpl(String vmName, VmCarry carried, VmRecord submitted) {
    this.name = vmName;
    Object memo = Workflow.getMemo(VmWorkflow.SUBMISSION, Long.class);
    this.submission = memo instanceof Long s ? s : 0;
  }

  @Override
  public void run(String vmName, VmCarry carried, VmRecord submitted) {
    boolean handedOver = submitted != null && carried == null;
    VmRecord stored =
        handedOver
            ? submitted
            : saying("load vm " + name).load(new VmActivities.VmRef(name, submission));
    if (stored == null) {
      return; // deleted before its workflow ran
    }
    resume(stored, carried);
    if (handedOver && (worker == null || startShowsIt())) {
      showPending =
          false; // handed over at its submission: the start's search attributes show it already
    }
    while (true) {
      showNow(); // before it waits: what it heard is shown by the task that heard it
      if (restartAtMillis > 0) {
        Duration wait =
            Duration.ofMillis(Math.max(0, restartAtMillis - Workflow.currentTimeMillis()));
        boolean interrupted =
            Timers.sleepUnless(
                wait,
                "restart "
                    + (restartCount + 1)
                    + " in "
                    + dev.rota.workflows.Readable.duration(wait),
                () -> !commands.isEmpty());
        if (!interrupted) {
          restartNow();
        }
      } else if (expires()) {
        long expiresAt = finishedSinceMillis + ttlSecondsAfterFinished * 1000L;
        Duration wait = Duration.ofMillis(Math.max(0, expiresAt - Workflow.currentTimeMillis()));
        if (!Timers.sleepUnless(
            wait,
            "delete in " + dev.rota.workflows.Readable.duration(wait) + " (ttlAfterFinished)",
            () -> !commands.isEmpty())) {
          deleteRequested = true; // from here on, actions are refused as for a delete
          deleteNow(
              "deleted "
                  + ttlSecondsAfterFinished
                  + " s after it finished (ttlSecondsAfterFinished)");
          Workflow.await(Workflow::isEveryHandlerFinished);
          return;
        }
      } else if (finished()) {
        if (settled()) {
          end(); // a user's action or delete begins the next run under the same id
          return;
        }
      } else {
        Workflow.await(() -> !commands.isEmpty());
      }
      while (!commands.isEmpty()) {
        Command next = commands.poll();
        if (!(next instanceof Hear)) {
          recordHeard(); // what the task events made of the VM is recorded before anything else
          // changes it
        }
        if (handle(next)) {
          Workflow.await(Workflow::isEveryHandlerFinished);
          return;
        }
      }
      recordHeard(); // once for every event that arrived together
      if (historyFull() && settled()) {
        Workflow.continueAsNew(name, carry(), null);
      }
    }
  }

  /**
   * Whether every handler has finished with nothing left to carry out, so that the run may end or
   * continue as new; false when a command came meanwhile. An update's handler waits for its
   * command, so it counts as finished once the command is queued.
   */
  private boolean settled() {
    Workflow.await(() -> !commands.isEmpty() || Workflow.isEveryHandlerFinished());
    return commands.isEmpty();
  }

  /** Stopped, or failed with no restart coming. */
  private boolean finished() {
    return RunRule.endedForGood(status, restartAtMillis > 0);
  }

  /**
   * Ends the run with the VM: completed when it stopped, failed with its reason when it failed for
   * good, so that the Temporal UI's list shows RUNNING only for a VM that may still run, and its
   * failures filter finds the VMs that failed.
   */
  private void end() {
    Workflow.setCurrentDetails(
        details()
            + (message == null ? "" : "\n\n" + message)
            + "\n\nThis run ended with the VM; `rota vm start "
            + name
            + "` begins the next under the same workflow id.");
    if (status == VmStatus.FAILED) {
      ApplicationFailure failed =
          ApplicationFailure.newNonRetryableFailure(
              message == null ? "failed" : message, VmWorkflow.FAILED);
      failed.setStackTrace(new StackTraceElement[0]); // the VM's failure, not the code's
      throw failed;
    }
  }

  /**
   * Whether the VM is finished (stopped, or failed with no restart coming) and has a TTL, noting
   * when it became finished; a VM that runs again starts the count afresh when it next finishes.
   */
  private boolean expires() {
    if (!finished()) {
      finishedSinceMillis = 0;
      return false;
    }
    if (ttlSecondsAfterFinished == null) {
      return false;
    }
    if (finishedSinceMillis == 0) {
      finishedSinceMillis = Workflow.currentTimeMillis();
    }
    return true;
  }

  /**
   * Whether this run's history is long enough to continue as new, with nothing left to carry out.
   */
  private boolean historyFull() {
    return commands.isEmpty() && Workflow.getInfo().getHistoryLength() > HISTORY_LIMIT;
  }

  private VmCarry carry() {
    return VmCarry.of(life(), count, finishedSinceMillis, readiness);
  }

  /**
   * Picks up where the run before left off, or else where the store says the VM is: after a lost
   * workflow, a failed VM still restarts.
   */
  private void resume(VmRecord stored, VmCarry carried) {
    ttlSecondsAfterFinished = stored.ttlSecondsAfterFinished();
    restarts = restartSettings(stored);
    readiness = carried != null ? carried.readiness() : stored.readiness();
    if (carried != null) {
      takeOver(carried);
      loaded = true;
      showLater();
      return;
    }
    status = WireName.parse(VmStatus.class, stored.status()).orElse(VmStatus.PENDING);
    worker = stored.worker();
    restartCount = stored.restartCount();
    scheduledAtMillis = stored.scheduledAtMillis();
    startedAtMillis = stored.startedAtMillis();
    finishedAtMillis = stored.finishedAtMillis();
    lastTaskEventId = stored.taskEventId();
    movingFrom = status == VmStatus.RUNNING ? stored.movingFrom() : null;
    loaded = true;
    // A run begun by a user's action, a delete, or a restore after Temporal lost the last one: only
    // a restart the last run had scheduled is still due.
    restartAtMillis = status == VmStatus.FAILED ? stored.restartAtMillis() : 0;
    if (ttlSecondsAfterFinished != null && stored.finishedAtMillis() > 0) {
      finishedSinceMillis =
          stored.finishedAtMillis(); // a finished VM's TTL counts from its end, not from now
    }
    showLater();
  }

  private static RestartRule.Settings restartSettings(VmRecord stored) {
    return new RestartRule.Settings(
        WireName.parse(RestartPolicy.class, stored.restartPolicy()).orElse(RestartPolicy.NEVER),
        Duration.ofMillis(stored.restartDelayMillis()),
        Duration.ofMillis(stored.maxRestartDelayMillis()),
        stored.maxRestarts(),
        Duration.ofMillis(stored.restartWindowMillis()));
  }

  private void takeOver(VmCarry c) {
    adopt(c.life());
    count = c.count();
    finishedSinceMillis = c.finishedSinceMillis();
  }

  /** Carries out one command; true when the VM is deleted and the workflow ends. */
  private boolean handle(Command command) {
    if (command instanceof Hear h) {
      hear(h.event());
    } else if (command instanceof Act a) {
      if (allows(a.action())) {
        a.done().complete(act(a.action()));
      } else {
        a.done().completeExceptionally(notAllowed(a.action()));
      }
    } else if (command instanceof Delete) {
      deleteNow(null);
      return true;
    }
    return false;
  }

  /**
   * Applies what the scheduler observed of a task, as {@link EventRule} says: only an event about
   * the current task, not one the user's stop already overtook, and only one newer than the last
   * applied. The lifecycle is recorded once the events that arrived together are applied; an end is
   * recorded before the restart it leads to. Readiness news changes only the summary ({@link
   * HeardReadiness}): the store has it already.
   */
  private void hear(TaskEvent e) {
    TaskEventType type = WireName.parse(TaskEventType.class, e.type()).orElse(null);
    int generation = TaskId.parse(e.taskId()).map(TaskId::restartCount).orElse(-1);
    if (type != null && type.tellsReadiness()) {
      HeardReadiness before = readiness;
      readiness =
          readiness.heard(e.id(), type, generation, e.atMillis(), e.message(), restartCount);
      if (!readiness.equals(before)) {
        Workflow.setCurrentDetails(details()); // not a command: no history, no replay concern
      }
      return;
    }
    if (!EventRule.applies(type, generation, restartCount, status, e.id(), lastTaskEventId)) {
      return;
    }
    // A start the row shows already, after older events of its batch: a local activity, a marker
    // and a commit to change nothing. A later event in the batch records all.
    boolean shownAlready = type == TaskEventType.STARTED && e.recorded();
    EventRule.Heard heard =
        EventRule.apply(
            life(),
            new TaskHeard(
                e.id(),
                type,
                generation,
                e.worker(),
                e.message(),
                e.exitCode(),
                e.atMillis(),
                e.startedAtMillis()));
    adopt(heard.life());
    unrecorded = !shownAlready;
    switch (heard.then()) {
      case DRAINED -> drained(e);
      case ENDED -> {
        lastEnd = howItEnded();
        recordHeard(); // the end first, then the restart it leads to
        afterEnd(status == VmStatus.FAILED, finishedAtMillis);
        showLater();
      }
      case NOTHING -> showLater();
    }
  }

  private VmLife life() {
    return new VmLife(
        status,
        worker,
        restartCount,
        message,
        exitCode,
        lastTaskEventId,
        scheduledAtMillis,
        startedAtMillis,
        finishedAtMillis,
        movingFrom,
        movingTo,
        restartAtMillis);
  }

  private void adopt(VmLife life) {
    status = life.status();
    worker = life.worker();
    restartCount = life.restartCount();
    message = life.message();
    exitCode = life.exitCode();
    lastTaskEventId = life.lastTaskEventId();
    scheduledAtMillis = life.scheduledAtMillis();
    startedAtMillis = life.startedAtMillis();
    finishedAtMillis = life.finishedAtMillis();
    movingFrom = life.movingFrom();
    movingTo = life.movingTo();
    restartAtMillis = life.restartAtMillis();
  }

  /**
   * Its worker's drain deadline passed with its task still there: with a restart policy it starts
   * again elsewhere at once (a drain is no failure of the VM's), else it stops.
   */
  private void drained(TaskEvent e) {
    recordHeard(); // the event is applied before the lifecycle moves on
    restartAtMillis = 0;
    String why = "worker " + e.worker() + " was drained";
    if (restarts.policy() != RestartPolicy.NEVER) {
      List<VmActivities.WorkerTask> old = tasksHeld();
      requeue(
          "started again elsewhere: "
              + why
              + " (restart "
              + (restartCount + 1)
              + ", restartPolicy "
              + restarts.policy().wireName()
              + ")",
          "restarted");
      old.forEach(this::removeTask);
    } else {
      stopNow("stopped: " + why + " (restartPolicy Never)");
    }
  }

  private void recordHeard() {
    if (unrecorded) {
      unrecorded = false;
      // Written often, quickly, within the workflow task: a local activity.
      Workflow.newLocalActivityStub(
              VmReadModel.class,
              LocalActivityOptions.newBuilder(ActivityDefaults.storeLocal(Duration.ofMinutes(1)))
                  .setSummary(
                      status.wireName()
                          + (worker == null ? "" : " on " + worker)
                          + " as "
                          + taskId()
                          + (message == null ? "" : ": " + message))
                  .build())
          .recordLifecycle(
              new VmLifecycle(
                  name,
                  restartCount,
                  status.wireName(),
                  worker,
                  message,
                  exitCode,
                  lastTaskEventId,
                  scheduledAtMillis,
                  startedAtMillis,
                  finishedAtMillis,
                  submission));
    }
    showNow();
  }

  /** What an ended task leads to under the restart policy ({@link RestartRule}). */
  private void afterEnd(boolean failed, long endedAtMillis) {
    RestartRule.AfterEnd next =
        RestartRule.afterEnd(
            restarts, count, failed, startedAtMillis, endedAtMillis, Workflow.currentTimeMillis());
    count = next.count();
    if (next instanceof RestartRule.Restart restart) {
      scheduleRestart(restart.atMillis(), restart.delay());
    } else if (next instanceof RestartRule.GiveUp giveUp) {
      // It stays failed, saying why; a user's start begins the count afresh.
      message = (message == null ? "failed" : message) + "; " + giveUp.reason();
      recordStatus(
          new VmActivities.StatusChange(
              name, status.wireName(), message, "restarts-exhausted", submission));
    }
  }

  private void scheduleRestart(long atMillis, Duration delay) {
    restartAtMillis = atMillis;
    recordEvent(
        new VmActivities.VmEvent(
            name,
            "restart-scheduled",
            "restart "
                + (restartCount + 1)
                + " scheduled for "
                + Instant.ofEpochMilli(restartAtMillis)
                + " ("
                + delay.toSeconds()
                + " s after the task ended, "
                + Math.max(1, count.failuresInARow())
                + " in a row)",
            restartAtMillis,
            submission));
  }

  private void restartNow() {
    restartAtMillis = 0;
    String failedOn = status == VmStatus.FAILED ? worker : null;
    requeue(
        "restarted after the task ended (restart "
            + (restartCount + 1)
            + ")"
            + (failedOn != null ? "; preferring a worker other than " + failedOn : ""),
        "restarted",
        failedOn);
  }

  private String act(UserAction action) {
    restartAtMillis = 0;
    switch (action) {
      case STOP -> stopNow("stopped by request");
      case START -> {
        count = RestartRule.Count.NONE;
        requeue("started by request", "started");
      }
      case RESTART -> {
        count = new RestartRule.Count(0, count.restartsAfterFailure());
        // The new generation first: while the VM still wanted the old task, a term seeing it gone
        // would call it vanished; once the VM is at the next generation, the old task is just one
        // to remove.
        List<VmActivities.WorkerTask> old = tasksHeld();
        requeue("restarted by request", "restarted");
        old.forEach(this::removeTask);
      }
    }
    return status.wireName();
  }

  /**
   * Removes its task, if it may have one, then its rows; {@code why} it went, for the Temporal UI,
   * or null.
   */
  private void deleteNow(String why) {
    restartAtMillis = 0;
    removeTaskIfAny();
    saying("delete vm " + name).deleteVm(new VmActivities.VmRef(name, submission));
    // Otherwise a deleted running VM stays in `RotaVmStatus = 'running'` and `RotaWorker = 'w'`
    // lists.
    Workflow.upsertTypedSearchAttributes(
        RotaSearchAttributes.VM_STATUS.valueSet(DELETED), RotaSearchAttributes.WORKER.valueUnset());
    Workflow.setCurrentDetails("**" + DELETED + "**" + (why == null ? "" : ": " + why));
  }

  /** Removes its task, if it may have one, and stops it, saying {@code why}. */
  private void stopNow(String why) {
    if (mayHaveTask()) {
      status = VmStatus.STOPPING;
      recordStatus(
          new VmActivities.StatusChange(
              name,
              status.wireName(),
              "stopping: removing task " + taskId() + " from " + worker,
              "stopping",
              submission));
      show();
      removeTaskIfAny();
    }
    status = VmStatus.STOPPED;
    recordStatus(
        new VmActivities.StatusChange(name, status.wireName(), why, "stopped", submission));
    show();
  }

  /** A new generation (so a new task id), pending for the scheduler. */
  private void requeue(String why, String eventType) {
    requeue(why, eventType, null);
  }

  private void requeue(String why, String eventType, String failedOn) {
    restartCount++;
    worker = null;
    movingFrom = null;
    movingTo = null;
    status = VmStatus.PENDING;
    saying("pending as " + taskId() + ": " + why)
        .requeue(
            new VmActivities.Requeue(name, restartCount, why, eventType, failedOn, submission));
    show();
  }

  private boolean mayHaveTask() {
    return HeldTasks.mayHaveTask(status, worker);
  }

  private String taskId() {
    return name + "." + restartCount;
  }

  /** The tasks the VM may have: its current one, and while it moves, the old copy as well. */
  private List<VmActivities.WorkerTask> tasksHeld() {
    return HeldTasks.of(name, restartCount, status, worker, movingFrom, movingTo).stream()
        .map(t -> new VmActivities.WorkerTask(t.worker(), t.taskId(), submission))
        .toList();
  }

  /**
   * Removes the tasks it may have; an unreachable agent does not stop the VM's life from moving on.
   */
  private void removeTaskIfAny() {
    tasksHeld().forEach(this::removeTask);
  }

  private void removeTask(VmActivities.WorkerTask task) {
    try {
      saying("remove task " + task.taskId() + " from " + task.worker()).removeTask(task);
    } catch (ActivityFailure e) {
      recordEvent(
          new VmActivities.VmEvent(
              name,
              "task-removal-failed",
              "could not remove task "
                  + task.taskId()
                  + " from "
                  + task.worker()
                  + "; the scheduler removes it when the agent answers",
              submission));
    }
  }

  // ---- handlers ----

  /** Whether {@code action} is allowed now: the one rule for validators and the loop. */
  private boolean allows(UserAction action) {
    return ActionRule.allows(action, status, deleteRequested);
  }

  /** Before the stored state is loaded the loop judges; after, refusals are answered at once. */
  private void validate(UserAction action) {
    if (loaded && !allows(action)) {
      throw notAllowed(action);
    }
  }

  @Override
  public void validateStop() {
    validate(UserAction.STOP);
  }

  @Override
  public String stop() {
    return enqueue(UserAction.STOP);
  }

  @Override
  public void validateStart() {
    validate(UserAction.START);
  }

  @Override
  public String start() {
    return enqueue(UserAction.START);
  }

  @Override
  public void validateRestart() {
    validate(UserAction.RESTART);
  }

  @Override
  public String restart() {
    return enqueue(UserAction.RESTART);
  }

  private String enqueue(UserAction action) {
    CompletablePromise<String> done = Workflow.newPromise();
    commands.add(new Act(action, done));
    return done.get();
  }

  @Override
  public void taskEvent(TaskEvent event) {
    if (deleteRequested) {
      return;
    }
    commands.add(new Hear(event));
  }

  @Override
  public void taskEvents(List<TaskEvent> events) {
    events.forEach(this::taskEvent);
  }

  @Override
  public void delete() {
    if (deleteRequested) {
      return;
    }
    deleteRequested = true;
    commands.add(new Delete());
  }

  @Override
  public String status() {
    return status.wireName();
  }

  /**
   * Whether the search attributes it was started with show the VM as it was handed over, worker
   * included: a start made once the VM runs, by a host that sets the worker at the start. Its first
   * task then upserts nothing, which spares the server a visibility write per VM.
   */
  private boolean startShowsIt() {
    return lastEnd == null
        && RotaSearchAttributes.shows(
            Workflow.getTypedSearchAttributes(), status.wireName(), worker, restartCount);
  }

  private ApplicationFailure notAllowed(UserAction action) {
    String why = deleteRequested ? "it is being deleted" : "it is " + status.wireName();
    return ApplicationFailure.newNonRetryableFailure(
        "cannot " + action.wireName() + " VM " + name + ": " + why, VmWorkflow.NOT_ALLOWED);
  }

  /** Shows what it heard with the workflow task's last event ({@link #showPending}). */
  private void showLater() {
    showPending = true;
    Workflow.setCurrentDetails(
        details()); // not a command: the Temporal UI's details are current at once
  }

  private void showNow() {
    if (showPending) {
      show();
    }
  }

  private void show() {
    showPending = false;
    SearchAttributeUpdate<?> shownStatus =
        RotaSearchAttributes.VM_STATUS.valueSet(status.wireName());
    SearchAttributeUpdate<?> shownWorker =
        worker == null
            ? RotaSearchAttributes.WORKER.valueUnset()
            : RotaSearchAttributes.WORKER.valueSet(worker);
    SearchAttributeUpdate<Long> restarts =
        RotaSearchAttributes.RESTARTS.valueSet((long) restartCount);
    // Never unset: a run continued as new, or begun anew, keeps the last end it was started with
    // until a task of its own ends.
    if (lastEnd == null) {
      Workflow.upsertTypedSearchAttributes(shownStatus, shownWorker, restarts);
    } else {
      Workflow.upsertTypedSearchAttributes(
          shownStatus, shownWorker, restarts, RotaSearchAttributes.LAST_EXIT.valueSet(lastEnd));
    }
    Workflow.setCurrentDetails(details());
  }

  /** How the task that just ended did, for {@link RotaSearchAttributes#LAST_EXIT}. */
  private String howItEnded() {
    if (exitCode != null) {
      return "exit " + exitCode;
    }
    String why = message == null ? status.wireName() : message;
    return why.length() <= LAST_EXIT_LENGTH ? why : why.substring(0, LAST_EXIT_LENGTH - 1) + "…";
  }

  private String details() {
    String details =
        "**"
            + status.wireName()
            + "**"
            + (worker == null ? "" : " on " + worker)
            + ", restart "
            + restartCount
            + (movingFrom == null ? "" : "; moving" + (movingTo == null ? "" : " to " + movingTo));
    if (restartAtMillis > 0) {
      details += "; next restart at " + Instant.ofEpochMilli(restartAtMillis);
    }
    String ready = readiness.shown(status, restartCount);
    return ready == null ? details : details + "; " + ready;
  }
}
