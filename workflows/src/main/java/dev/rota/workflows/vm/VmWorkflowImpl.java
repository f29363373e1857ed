package dev.rota.workflows.vm;

import dev.rota.agentapi.TaskId;
import dev.rota.core.lifecycle.EventRule;
import dev.rota.core.lifecycle.HeardReadiness;
import dev.rota.core.lifecycle.Lease;
import dev.rota.core.lifecycle.RestartRule;
import dev.rota.core.lifecycle.TaskHeard;
import dev.rota.core.lifecycle.UserAction;
import dev.rota.core.lifecycle.VmLife;
import dev.rota.core.model.LeaseEnd;
import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import dev.rota.workflows.Timers;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One VM's life. The scheduler places it and reports its task (signal {@code observed}); users
 * stop, start and restart it (updates, decided here: a refusal changes nothing) and delete it
 * (signal). All of it is queued and carried out by one loop, in order, so that there is one writer
 * of the VM's lifecycle. A task that ends is restarted as its policy says, after a delay counted
 * from the end and doubling on each failure in a row. The scheduler may move a running replica
 * (event {@code moved}): the VM stays running on its old task, at the next generation, until the
 * new copy has started. When its worker's drain deadline passes with the task still there (event
 * {@code drained}), it stops, or with a restart policy starts again elsewhere. A VM with a lease
 * ({@link Lease}) is stopped or deleted when it runs out, counted by a timer here.
 */
public class VmWorkflowImpl implements VmWorkflow {
  /** What {@code RotaVmStatus} says of a VM that was deleted (its workflow is closed). */
  public static final String DELETED = "deleted";

  /**
   * Past this many events an idle run hands its state to a new one (continue-as-new): a VM that
   * restarts every few seconds for a year would otherwise reach Temporal's limit on a history.
   */
  static final int HISTORY_LIMIT = 1_000;

  private final String name;

  /** What users and the scheduler sent, waiting for the loop. */
  private final VmInbox inbox;

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

  /** Its search attributes and current details in the Temporal UI. */
  private final VmShown shown = new VmShown();

  private final VmSteps steps;

  /** How long after it finished the VM is deleted; null: kept. */
  private Integer ttlSecondsAfterFinished;

  /** When it last became finished (stopped, or failed for good); 0 while it is not. */
  private long finishedSinceMillis;

  /** Whether its disk, and so the VM, stays on its worker: a drain does not send it elsewhere. */
  private boolean persistentDisk;

  /** Why it cannot be suspended, or null when it can. */
  private String suspendRefusal;

  /** Why it cannot be paused in place, or null when it can. */
  private String pauseRefusal;

  /** The name its tasks carry on the agents: its own, or a pool replica's it was claimed as. */
  private String taskName;

  /** How long it may run, and when that runs out; the store keeps it, so no carry needs it. */
  private Lease lease = Lease.NONE;

  /** Runs before any handler, so that an update in the first workflow task knows the VM. */
  @WorkflowInit
  public VmWorkflowImpl(String vmName, VmCarry carried, VmRecord submitted) {
    this.name = vmName;
    this.taskName = vmName;
    this.inbox =
        new VmInbox(
            vmName,
            () -> life.status(),
            () -> life.movingFrom(),
            action ->
                switch (action) {
                  case SUSPEND -> suspendRefusal;
                  case PAUSE -> pauseRefusal;
                  default -> null;
                });
    // The submission this run is for; 0 when started without it.
    Object memo = Workflow.getMemo(VmWorkflow.SUBMISSION, Long.class);
    this.steps =
        new VmSteps(
            vmName,
            () -> taskName,
            memo instanceof Long s ? s : 0,
            shown,
            () -> life,
            next -> life = next,
            () -> lease);
  }

  @Override
  public void run(String vmName, VmCarry carried, VmRecord submitted) {
    boolean handedOver = submitted != null && carried == null;
    VmRecord stored =
        handedOver
            ? submitted
            : VmCalls.saying("load vm " + name)
                .load(new VmActivities.VmRef(name, steps.submission()));
    if (stored == null) {
      return; // deleted before its workflow ran
    }
    resume(stored, carried);
    leaseHeard(); // a VM whose row shows it running already (its start came before its workflow)
    if (handedOver && (life.worker() == null || shown.startShows(life))) {
      shown.shownByItsStart();
    }
    while (true) {
      // Before it waits: what it heard is shown by the task that heard it.
      shown.now(life);
      if (inbox.isEmpty() && lease.runsOutBy(Workflow.currentTimeMillis(), life)) {
        if (leaseRanOut()) {
          return;
        }
      } else if (life.restartAtMillis() > 0) {
        // A lease that runs out before the restart is due wakes the VM first, to end it.
        boolean leaseFirst = lease.pending(life) && lease.endsAtMillis() < life.restartAtMillis();
        Duration wait = until(leaseFirst ? lease.endsAtMillis() : life.restartAtMillis());
        boolean interrupted =
            Timers.sleepUnless(
                wait,
                leaseFirst
                    ? leaseEndsIn(wait)
                    : "restart "
                        + (life.restartCount() + 1)
                        + " in "
                        + dev.rota.workflows.Readable.duration(wait),
                () -> !inbox.isEmpty());
        if (!interrupted && !leaseFirst) {
          restartNow();
        }
      } else if (expires()) {
        long expiresAt = finishedSinceMillis + ttlSecondsAfterFinished * 1000L;
        Duration wait = Duration.ofMillis(Math.max(0, expiresAt - Workflow.currentTimeMillis()));
        if (!Timers.sleepUnless(
            wait,
            "delete in " + dev.rota.workflows.Readable.duration(wait) + " (ttlAfterFinished)",
            () -> !inbox.isEmpty())) {
          inbox.deleting();
          steps.delete(
              "deleted "
                  + dev.rota.core.model.WrittenDuration.of(ttlSecondsAfterFinished)
                  + " after it finished (ttlAfterFinished)");
          Workflow.await(Workflow::isEveryHandlerFinished);
          return;
        }
      } else if (life.finished()) {
        if (settled()) {
          if (!staysOpen()) {
            end(); // a user's action or delete begins the next run under the same id
            return;
          }
          say("Failed for good; `rota vm start " + name + "` starts it again in this run.");
          Workflow.await(() -> !inbox.isEmpty()); // a start, a restart or a delete
        }
      } else if (lease.pending(life)) {
        Duration wait = until(lease.endsAtMillis());
        Timers.sleepUnless(wait, leaseEndsIn(wait), () -> !inbox.isEmpty());
      } else {
        Workflow.await(() -> !inbox.isEmpty());
      }
      while (!inbox.isEmpty()) {
        VmInbox.Command next = inbox.next();
        if (!(next instanceof VmInbox.Hear)) {
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
    Workflow.await(() -> !inbox.isEmpty() || Workflow.isEveryHandlerFinished());
    return inbox.isEmpty();
  }

  /**
   * Whether the run waits on with its finished VM rather than ending: a VM failed for good keeps
   * its run open, showing {@code failed}, until a user starts or deletes it, so that the Temporal
   * UI's list of running VM workflows with status {@code failed} is what is failing now, and a
   * deleted VM leaves it. A stopped VM's run ends, completed. Runs from before this rule ended
   * failed VMs too, and replay so.
   */
  private boolean staysOpen() {
    return life.status() == VmStatus.FAILED
        && Workflow.getVersion(FAILED_RUN_STAYS_OPEN, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /** The change that keeps a failed VM's run open ({@link #staysOpen}). */
  static final String FAILED_RUN_STAYS_OPEN = "failed-run-stays-open";

  /**
   * Ends the run with the VM: completed when it stopped, and (in runs from before {@link
   * #staysOpen}) failed with its reason when it failed for good.
   */
  private void end() {
    say(
        "This run ended with the VM; `rota vm start "
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

  /** The Temporal UI's current details of a finished VM: its state, why, and what comes next. */
  private void say(String next) {
    Workflow.setCurrentDetails(
        shown.details(life)
            + (life.message() == null ? "" : "\n\n" + life.message())
            + "\n\n"
            + next);
  }

  private static Duration until(long atMillis) {
    return Duration.ofMillis(Math.max(0, atMillis - Workflow.currentTimeMillis()));
  }

  private static String leaseEndsIn(Duration wait) {
    return "lease runs out in " + dev.rota.workflows.Readable.duration(wait) + " (maxRunDuration)";
  }

  /**
   * Its lease ran out: it stops, or is deleted, as its {@code onExpiry} says. True when it was
   * deleted and the workflow ends.
   */
  private boolean leaseRanOut() {
    String why =
        "its lease of "
            + dev.rota.core.model.WrittenDuration.of(lease.maxRunSeconds())
            + " ran out at "
            + Instant.ofEpochMilli(lease.endsAtMillis())
            + " (maxRunDuration)";
    life = life.withRestartAt(0);
    if (lease.onExpiry() == LeaseEnd.DELETE) {
      inbox.deleting();
      steps.delete("deleted: " + why);
      Workflow.await(Workflow::isEveryHandlerFinished);
      return true;
    }
    if (lease.onExpiry() == LeaseEnd.SUSPEND
        && suspendRefusal == null
        && steps.suspend("suspended: " + why, "lease-expired")) {
      return false;
    }
    steps.stop("stopped: " + why, "lease-expired");
    return false;
  }

  /**
   * The lease once the VM's life has moved on: it begins when the VM first runs, and says so in its
   * events.
   */
  private void leaseHeard() {
    Lease next = lease.heard(life, Workflow.currentTimeMillis());
    if (next != lease) {
      lease = next;
      steps.recordLease(
          "lease-started",
          "its lease of "
              + dev.rota.core.model.WrittenDuration.of(lease.maxRunSeconds())
              + " runs out at "
              + Instant.ofEpochMilli(lease.endsAtMillis())
              + " (maxRunDuration)");
    }
  }

  /** Its lease extended by {@code seconds}: when it now runs out. */
  private String extended(long seconds) {
    lease = lease.extendedBy(seconds);
    String endsAt = Instant.ofEpochMilli(lease.endsAtMillis()).toString();
    steps.recordLease(
        "lease-extended",
        "lease extended by "
            + dev.rota.core.model.WrittenDuration.of(seconds)
            + ": runs out at "
            + endsAt);
    return endsAt;
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
    return inbox.isEmpty() && Workflow.getInfo().getHistoryLength() > HISTORY_LIMIT;
  }

  private VmCarry carry() {
    return VmCarry.of(life, count, finishedSinceMillis, shown.readiness());
  }

  /**
   * Picks up where the run before left off, or else where the store says the VM is: after a lost
   * workflow, a failed VM still restarts.
   */
  private void resume(VmRecord stored, VmCarry carried) {
    ttlSecondsAfterFinished = stored.ttlSecondsAfterFinished();
    restarts = stored.restartSettings();
    lease = stored.lease();
    persistentDisk = stored.persistentDisk();
    taskName = stored.taskName() != null ? stored.taskName() : name;
    suspendRefusal = stored.suspendRefusal();
    pauseRefusal = stored.pauseRefusal();
    shown.readinessWas(carried != null ? carried.readiness() : stored.readiness());
    if (carried != null) {
      life = carried.life();
      count = carried.count();
      finishedSinceMillis = carried.finishedSinceMillis();
    } else {
      life = stored.life();
      if (ttlSecondsAfterFinished != null && stored.finishedAtMillis() > 0) {
        finishedSinceMillis =
            stored.finishedAtMillis(); // a finished VM's TTL counts from its end, not from now
      }
    }
    inbox.loaded();
    shown.later(life);
  }

  /** Carries out one command; true when the VM is deleted and the workflow ends. */
  private boolean handle(VmInbox.Command command) {
    if (command instanceof VmInbox.Hear h) {
      hear(h.event());
    } else if (command instanceof VmInbox.Act a) {
      inbox.answer(a, this::act);
    } else if (command instanceof VmInbox.Extend x) {
      inbox.answer(x, () -> lease.refusesExtension(life), () -> extended(x.seconds()));
    } else if (command instanceof VmInbox.Delete) {
      steps.delete(null);
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
      shown.heard(
          life,
          shown
              .readiness()
              .heard(e.id(), type, generation, e.atMillis(), e.message(), life.restartCount()));
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
    leaseHeard();
    switch (heard.then()) {
      case DRAINED -> drained(e);
      case PREEMPTED -> preempted(e);
      case ENDED -> {
        shown.ended(life);
        recordHeard(); // the end first, then the restart it leads to
        afterEnd(life.status() == VmStatus.FAILED, life.finishedAtMillis());
        shown.later(life);
      }
      case NOTHING -> shown.later(life);
    }
  }

  /**
   * Its worker's drain deadline passed with its task still there: with a restart policy it starts
   * again elsewhere at once (a drain is no failure of the VM's), else it stops; one with a
   * persistent disk starts again elsewhere whatever its policy, its disk copied there.
   */
  private void drained(TaskEvent e) {
    // A VM with a persistent disk moves with it whatever its policy: its disk is what it keeps.
    evicted(
        persistentDisk
            ? "moving with its persistent disk, copied from worker " + e.worker() + ": "
            : "started again elsewhere: ",
        "worker " + e.worker() + " was drained",
        persistentDisk);
  }

  /**
   * A waiting VM of higher priority needs its room (the message names it): with a restart policy it
   * starts again once there is room, at once and counted as no failure (the term chose it for
   * having one); without one it stops.
   */
  private void preempted(TaskEvent e) {
    evicted("waiting for room again: ", e.message(), false);
  }

  /**
   * The term took its task away ({@code why}): its next generation is queued at once, not counted
   * as a failure, when its restart policy (or {@code withDisk}, a disk it keeps) starts it again;
   * else it stops.
   */
  private void evicted(String again, String why, boolean withDisk) {
    recordHeard(); // the event is applied before the lifecycle moves on
    life = life.withRestartAt(0);
    if (restarts.policy() != RestartPolicy.NEVER || withDisk) {
      steps.replace(
          again
              + why
              + " (restart "
              + (life.restartCount() + 1)
              + ", restartPolicy "
              + restarts.policy().wireName()
              + ")",
          "restarted",
          withDisk);
    } else {
      steps.stop("stopped: " + why + " (restartPolicy Never)");
    }
  }

  private void recordHeard() {
    if (unrecorded) {
      unrecorded = false;
      steps.record();
    }
    shown.now(life);
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
      steps.scheduleRestart(
          restart.atMillis(), restart.delay(), Math.max(1, count.failuresInARow()));
    } else if (next instanceof RestartRule.GiveUp giveUp) {
      steps.giveUp(giveUp.reason());
    }
  }

  private void restartNow() {
    life = life.withRestartAt(0);
    String failedOn = life.status() == VmStatus.FAILED ? life.worker() : null;
    steps.requeue(
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
      case STOP -> steps.stop("stopped by request");
      case START -> {
        if (life.status() == VmStatus.PAUSED) {
          steps.pause(false);
          break;
        }
        boolean resumes = life.status() == VmStatus.SUSPENDED;
        count = RestartRule.Count.NONE;
        lease = lease.renewed();
        steps.requeue(
            resumes
                ? "resuming by request, from its memory saved on worker " + life.worker()
                : "started by request",
            resumes ? "resumed" : "started",
            null);
      }
      case SUSPEND -> steps.suspend("suspended by request", "suspended");
      case PAUSE -> steps.pause(true);
      case RESTART -> {
        count = new RestartRule.Count(0, count.restartsAfterFailure());
        steps.replace("restarted by request", "restarted");
      }
    }
    return life.status().wireName();
  }

  // ---- handlers ----

  @Override
  public void validateStop() {
    inbox.validate(UserAction.STOP);
  }

  @Override
  public String stop() {
    return inbox.act(UserAction.STOP);
  }

  @Override
  public void validateStart() {
    inbox.validate(UserAction.START);
  }

  @Override
  public String start() {
    return inbox.act(UserAction.START);
  }

  @Override
  public void validateRestart() {
    inbox.validate(UserAction.RESTART);
  }

  @Override
  public String restart() {
    return inbox.act(UserAction.RESTART);
  }

  @Override
  public void validateSuspend() {
    inbox.validate(UserAction.SUSPEND);
  }

  @Override
  public String suspend() {
    return inbox.act(UserAction.SUSPEND);
  }

  @Override
  public void validatePause() {
    inbox.validate(UserAction.PAUSE);
  }

  @Override
  public String pause() {
    return inbox.act(UserAction.PAUSE);
  }

  @Override
  public void validateExtendLease(long seconds) {
    if (seconds <= 0) {
      throw ApplicationFailure.newNonRetryableFailure(
          "a lease is extended by a second or more", VmWorkflow.NOT_ALLOWED);
    }
    inbox.validateExtension(() -> lease.refusesExtension(life));
  }

  @Override
  public String extendLease(long seconds) {
    return inbox.extend(seconds);
  }

  @Override
  public void taskEvent(TaskEvent event) {
    inbox.hear(event);
  }

  @Override
  public void taskEvents(List<TaskEvent> events) {
    events.forEach(this::taskEvent);
  }

  @Override
  public void delete() {
    inbox.delete();
  }

  @Override
  public String status() {
    return life.status().wireName();
  }
}
