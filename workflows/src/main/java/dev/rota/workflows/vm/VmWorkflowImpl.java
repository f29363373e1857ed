package dev.rota.workflows.vm;

import dev.rota.agentapi.TaskId;
import dev.rota.lifecycle.ActionRule;
import dev.rota.lifecycle.EventRule;
import dev.rota.lifecycle.HeardReadiness;
import dev.rota.lifecycle.HeldTasks;
import dev.rota.lifecycle.RestartRule;
import dev.rota.lifecycle.TaskHeard;
import dev.rota.lifecycle.UserAction;
import dev.rota.lifecycle.VmLife;
import dev.rota.model.RestartPolicy;
import dev.rota.model.TaskEventType;
import dev.rota.model.VmStatus;
import dev.rota.model.WireName;
import dev.rota.workflows.Timers;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

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

  /**
   * Past this many events an idle run hands its state to a new one (continue-as-new): a VM that
   * restarts every few seconds for a year would otherwise reach Temporal's limit on a history.
   */
  static final int HISTORY_LIMIT = 1_000;

  private sealed interface Command {}

  private record Act(UserAction action, CompletablePromise<String> done) implements Command {}

  private record Delete() implements Command {}

  private record Hear(TaskEvent event) implements Command {}

  private final String name;

  /** The submission this run is for ({@link VmWorkflow#SUBMISSION}); 0 when started without it. */
  private final long submission;

  private final Deque<Command> commands = new ArrayDeque<>();

  /**
   * Where the VM's life stands: the one value the lifecycle rules take and give back, carried
   * through continue-as-new.
   */
  private VmLife life = VmLife.pending();

  private RestartRule.Settings restarts =
      new RestartRule.Settings(
          RestartPolicy.NEVER, Duration.ofSeconds(15), Duration.ofMinutes(5), null, Duration.ZERO);

  private RestartRule.Count count = RestartRule.Count.NONE;

  /** Whether a task event changed the lifecycle since it was last recorded. */
  private boolean unrecorded;

  private boolean deleteRequested;

  /** What it heard its readiness check say, shown in its summary while it runs. */
  private HeardReadiness readiness = HeardReadiness.none(false);

  /** Its search attributes and current details in the Temporal UI. */
  private final VmShown shown = new VmShown();

  /** Whether the stored state is loaded; until then only the loop can judge an action. */
  private boolean loaded;

  /** How long after it finished the VM is deleted; null: kept. */
  private Integer ttlSecondsAfterFinished;

  /** When it last became finished (stopped, or failed for good); 0 while it is not. */
  private long finishedSinceMillis;

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
            : VmCalls.saying("load vm " + name).load(new VmActivities.VmRef(name, submission));
    if (stored == null) {
      return; // deleted before its workflow ran
    }
    resume(stored, carried);
    if (handedOver && (life.worker() == null || shown.startShows(life))) {
      shown.shownByItsStart();
    }
    while (true) {
      // Before it waits: what it heard is shown by the task that heard it.
      shown.now(life, readiness);
      if (life.restartAtMillis() > 0) {
        Duration wait =
            Duration.ofMillis(Math.max(0, life.restartAtMillis() - Workflow.currentTimeMillis()));
        boolean interrupted =
            Timers.sleepUnless(
                wait,
                "restart "
                    + (life.restartCount() + 1)
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
      } else if (life.finished()) {
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
          // What the task events made of the VM is recorded before anything else changes it.
          recordHeard();
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

  /**
   * Ends the run with the VM: completed when it stopped, failed with its reason when it failed for
   * good, so that the Temporal UI's list shows RUNNING only for a VM that may still run, and its
   * failures filter finds the VMs that failed.
   */
  private void end() {
    Workflow.setCurrentDetails(
        VmShown.details(life, readiness)
            + (life.message() == null ? "" : "\n\n" + life.message())
            + "\n\nThis run ended with the VM; `rota vm start "
            + name
            + "` begins the next under the same workflow id.");
    if (life.status() == VmStatus.FAILED) {
      ApplicationFailure failed =
          ApplicationFailure.newNonRetryableFailure(
              life.message() == null ? "failed" : life.message(), VmWorkflow.FAILED);
      failed.setStackTrace(new StackTraceElement[0]); // the VM's failure, not the code's
      throw failed;
    }
  }

  /**
   * Whether the VM is finished (stopped, or failed with no restart coming) and has a TTL, noting
   * when it became finished; a VM that runs again starts the count afresh when it next finishes.
   */
  private boolean expires() {
    if (!life.finished()) {
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
    return VmCarry.of(life, count, finishedSinceMillis, readiness);
  }

  /**
   * Picks up where the run before left off, or else where the store says the VM is: after a lost
   * workflow, a failed VM still restarts.
   */
  private void resume(VmRecord stored, VmCarry carried) {
    ttlSecondsAfterFinished = stored.ttlSecondsAfterFinished();
    restarts = stored.restartSettings();
    readiness = carried != null ? carried.readiness() : stored.readiness();
    if (carried != null) {
      takeOver(carried);
      loaded = true;
      shown.later(life, readiness);
      return;
    }
    life = stored.life();
    loaded = true;
    if (ttlSecondsAfterFinished != null && stored.finishedAtMillis() > 0) {
      finishedSinceMillis =
          stored.finishedAtMillis(); // a finished VM's TTL counts from its end, not from now
    }
    shown.later(life, readiness);
  }

  private void takeOver(VmCarry c) {
    life = c.life();
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
          readiness.heard(e.id(), type, generation, e.atMillis(), e.message(), life.restartCount());
      if (!readiness.equals(before)) {
        VmShown.refresh(life, readiness); // not a command: nothing in the history
      }
      return;
    }
    if (!EventRule.applies(
        type, generation, life.restartCount(), life.status(), e.id(), life.lastTaskEventId())) {
      return;
    }
    // A start the row shows already, after older events of its batch: a local activity, a marker
    // and a commit to change nothing. A later event in the batch records all.
    boolean shownAlready = type == TaskEventType.STARTED && e.recorded();
    EventRule.Heard heard =
        EventRule.apply(
            life,
            new TaskHeard(
                e.id(),
                type,
                generation,
                e.worker(),
                e.message(),
                e.exitCode(),
                e.atMillis(),
                e.startedAtMillis()));
    life = heard.life();
    unrecorded = !shownAlready;
    switch (heard.then()) {
      case DRAINED -> drained(e);
      case ENDED -> {
        shown.ended(life);
        recordHeard(); // the end first, then the restart it leads to
        afterEnd(life.status() == VmStatus.FAILED, life.finishedAtMillis());
        shown.later(life, readiness);
      }
      case NOTHING -> shown.later(life, readiness);
    }
  }

  /**
   * Its worker's drain deadline passed with its task still there: with a restart policy it starts
   * again elsewhere at once (a drain is no failure of the VM's), else it stops.
   */
  private void drained(TaskEvent e) {
    recordHeard(); // the event is applied before the lifecycle moves on
    life = life.withRestartAt(0);
    String why = "worker " + e.worker() + " was drained";
    if (restarts.policy() != RestartPolicy.NEVER) {
      List<VmActivities.WorkerTask> old = VmCalls.tasksHeld(name, submission, life);
      requeue(
          "started again elsewhere: "
              + why
              + " (restart "
              + (life.restartCount() + 1)
              + ", restartPolicy "
              + restarts.policy().wireName()
              + ")",
          "restarted");
      old.forEach(t -> VmCalls.removeTask(name, submission, t));
    } else {
      stopNow("stopped: " + why + " (restartPolicy Never)");
    }
  }

  private void recordHeard() {
    if (unrecorded) {
      unrecorded = false;
      VmCalls.recordLifecycle(name, taskId(), life, submission);
    }
    shown.now(life, readiness);
  }

  /** What an ended task leads to under the restart policy ({@link RestartRule}). */
  private void afterEnd(boolean failed, long endedAtMillis) {
    RestartRule.AfterEnd next =
        RestartRule.afterEnd(
            restarts,
            count,
            failed,
            life.startedAtMillis(),
            endedAtMillis,
            Workflow.currentTimeMillis());
    count = next.count();
    if (next instanceof RestartRule.Restart restart) {
      scheduleRestart(restart.atMillis(), restart.delay());
    } else if (next instanceof RestartRule.GiveUp giveUp) {
      // It stays failed, saying why; a user's start begins the count afresh.
      life =
          life.withMessage(
              (life.message() == null ? "failed" : life.message()) + "; " + giveUp.reason());
      VmCalls.recordStatus(
          new VmActivities.StatusChange(
              name, life.status().wireName(), life.message(), "restarts-exhausted", submission));
    }
  }

  private void scheduleRestart(long atMillis, Duration delay) {
    life = life.withRestartAt(atMillis);
    VmCalls.recordEvent(
        new VmActivities.VmEvent(
            name,
            "restart-scheduled",
            "restart "
                + (life.restartCount() + 1)
                + " scheduled for "
                + Instant.ofEpochMilli(life.restartAtMillis())
                + " ("
                + delay.toSeconds()
                + " s after the task ended, "
                + Math.max(1, count.failuresInARow())
                + " in a row)",
            life.restartAtMillis(),
            submission));
  }

  private void restartNow() {
    life = life.withRestartAt(0);
    String failedOn = life.status() == VmStatus.FAILED ? life.worker() : null;
    requeue(
        "restarted after the task ended (restart "
            + (life.restartCount() + 1)
            + ")"
            + (failedOn != null ? "; preferring a worker other than " + failedOn : ""),
        "restarted",
        failedOn);
  }

  private String act(UserAction action) {
    life = life.withRestartAt(0);
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
        List<VmActivities.WorkerTask> old = VmCalls.tasksHeld(name, submission, life);
        requeue("restarted by request", "restarted");
        old.forEach(t -> VmCalls.removeTask(name, submission, t));
      }
    }
    return life.status().wireName();
  }

  /**
   * Removes its task, if it may have one, then its rows; {@code why} it went, for the Temporal UI,
   * or null.
   */
  private void deleteNow(String why) {
    life = life.withRestartAt(0);
    VmCalls.removeTasks(name, submission, life);
    VmCalls.saying("delete vm " + name).deleteVm(new VmActivities.VmRef(name, submission));
    VmShown.deleted(why);
  }

  /** Removes its task, if it may have one, and stops it, saying {@code why}. */
  private void stopNow(String why) {
    if (mayHaveTask()) {
      life = life.withStatus(VmStatus.STOPPING);
      VmCalls.recordStatus(
          new VmActivities.StatusChange(
              name,
              life.status().wireName(),
              "stopping: removing task " + taskId() + " from " + life.worker(),
              "stopping",
              submission));
      shown.show(life, readiness);
      VmCalls.removeTasks(name, submission, life);
    }
    life = life.withStatus(VmStatus.STOPPED);
    VmCalls.recordStatus(
        new VmActivities.StatusChange(name, life.status().wireName(), why, "stopped", submission));
    shown.show(life, readiness);
  }

  /** A new generation (so a new task id), pending for the scheduler. */
  private void requeue(String why, String eventType) {
    requeue(why, eventType, null);
  }

  private void requeue(String why, String eventType, String failedOn) {
    life = life.requeued();
    VmCalls.saying("pending as " + taskId() + ": " + why)
        .requeue(
            new VmActivities.Requeue(
                name, life.restartCount(), why, eventType, failedOn, submission));
    shown.show(life, readiness);
  }

  private boolean mayHaveTask() {
    return HeldTasks.mayHaveTask(life.status(), life.worker());
  }

  private String taskId() {
    return name + "." + life.restartCount();
  }

  // ---- handlers ----

  /** Whether {@code action} is allowed now: the one rule for validators and the loop. */
  private boolean allows(UserAction action) {
    return ActionRule.allows(action, life.status(), deleteRequested);
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
    return life.status().wireName();
  }

  private ApplicationFailure notAllowed(UserAction action) {
    String why = deleteRequested ? "it is being deleted" : "it is " + life.status().wireName();
    return ApplicationFailure.newNonRetryableFailure(
        "cannot " + action.wireName() + " VM " + name + ": " + why, VmWorkflow.NOT_ALLOWED);
  }
}
