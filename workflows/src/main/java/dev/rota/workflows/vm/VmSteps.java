package dev.rota.workflows.vm;

import dev.rota.core.lifecycle.HeldTasks;
import dev.rota.core.lifecycle.Lease;
import dev.rota.core.lifecycle.VmLife;
import dev.rota.core.model.VmStatus;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The steps of a VM's workflow that reach outside it: each writes what it did to the store and
 * shows it in the Temporal UI. Each moves the VM's life on before the calls that carry it out, so
 * that a query, or an action judged while they run, sees where the VM stands (stopping, not
 * running). Which step to take is the workflow's (and its rules') to decide.
 */
final class VmSteps {
  private final String name;
  private final long submission;
  private final VmShown shown;
  private final Supplier<VmLife> life;
  private final Consumer<VmLife> moveOn;
  private final Supplier<Lease> lease;

  /** The name its tasks carry on the agents: its own, or a pool replica's it was claimed as. */
  private final Supplier<String> taskName;

  VmSteps(
      String name,
      Supplier<String> taskName,
      long submission,
      VmShown shown,
      Supplier<VmLife> life,
      Consumer<VmLife> moveOn,
      Supplier<Lease> lease) {
    this.name = name;
    this.taskName = taskName;
    this.submission = submission;
    this.shown = shown;
    this.life = life;
    this.moveOn = moveOn;
    this.lease = lease;
  }

  private VmLife to(VmLife next) {
    moveOn.accept(next);
    return next;
  }

  long submission() {
    return submission;
  }

  /** Removes its task, if it may have one, and stops it, saying {@code why}. */
  void stop(String why) {
    stop(why, "stopped");
  }

  /** As {@link #stop(String)}, the event that says so of type {@code eventType}. */
  void stop(String why, String eventType) {
    VmLife now = life.get();
    if (HeldTasks.mayHaveTask(now.status(), now.worker())) {
      VmLife stopping = to(now.withStatus(VmStatus.STOPPING));
      status(
          stopping,
          "stopping: removing task " + taskId(stopping) + " from " + stopping.worker(),
          "stopping");
      VmCalls.removeTasks(name, taskName.get(), submission, stopping);
    }
    status(to(life.get().withStatus(VmStatus.STOPPED)), why, eventType);
  }

  /**
   * Saves its memory on its worker and ends its task there, saying {@code why}: suspended, holding
   * nothing of the worker's but the memory a start resumes from. An agent that cannot save it
   * leaves it running, saying why; false then.
   */
  boolean suspend(String why, String eventType) {
    VmLife suspending = to(life.get().withStatus(VmStatus.SUSPENDING));
    String worker = suspending.worker();
    VmActivities.WorkerTask task =
        new VmActivities.WorkerTask(worker, taskId(suspending), submission);
    status(suspending, "suspending: saving its memory on " + worker, "suspending");
    long bytes;
    try {
      bytes = VmCalls.saying("save its memory on " + worker).suspendTask(task);
    } catch (io.temporal.failure.ActivityFailure e) {
      status(
          to(life.get().withStatus(VmStatus.RUNNING)),
          "still running on " + worker + ": it could not be suspended: " + VmCalls.reason(e),
          "suspend-failed");
      return false;
    }
    VmCalls.removeTask(name, submission, task);
    status(
        to(life.get().withStatus(VmStatus.SUSPENDED)),
        why
            + " ("
            + dev.rota.workflows.Readable.bytes(bytes)
            + " of memory saved on "
            + worker
            + ")",
        eventType);
    return true;
  }

  /**
   * Pauses its guest where it runs ({@code pause}), its QEMU, memory and room kept, or runs it on;
   * an agent that cannot leaves it as it was, saying why. Whether it was done.
   */
  boolean pause(boolean pause) {
    VmLife now = life.get();
    String worker = now.worker();
    try {
      VmCalls.saying((pause ? "pause its guest on " : "run its guest on again on ") + worker)
          .pauseTask(new VmActivities.PauseTask(worker, taskId(now), submission, pause));
    } catch (io.temporal.failure.ActivityFailure e) {
      VmCalls.recordEvent(
          new VmActivities.VmEvent(
              name,
              pause ? "pause-failed" : "continue-failed",
              "still " + now.status().wireName() + " on " + worker + ": " + VmCalls.reason(e),
              submission));
      return false;
    }
    if (pause) {
      status(
          to(now.withStatus(VmStatus.PAUSED)),
          "paused in place on " + worker + ": its QEMU, memory and room kept",
          "paused");
    } else {
      status(to(now.withStatus(VmStatus.RUNNING)), "running on again on " + worker, "continued");
    }
    return true;
  }

  /** A new generation (so a new task id), pending for the scheduler. */
  void requeue(String why, String eventType, String failedOn) {
    requeue(why, eventType, failedOn, false);
  }

  /** As {@link #requeue(String, String, String)}; with {@code moveDisk}, its disk goes with it. */
  void requeue(String why, String eventType, String failedOn, boolean moveDisk) {
    VmLife next = to(life.get().requeued());
    VmCalls.saying("pending as " + taskId(next) + ": " + why)
        .requeue(
            new VmActivities.Requeue(
                name,
                next.restartCount(),
                why,
                eventType,
                failedOn,
                submission,
                lease.get().endsAtMillis(),
                moveDisk));
    shown.show(next);
  }

  /**
   * A new generation while the old task may still run: the new one first, since while the VM still
   * wanted the old task a term seeing it gone would call it vanished; once the VM is at the next
   * generation, the old task is just one to remove.
   */
  void replace(String why, String eventType) {
    replace(why, eventType, false);
  }

  /** As {@link #replace(String, String)}; with {@code moveDisk}, its disk goes with it. */
  void replace(String why, String eventType, boolean moveDisk) {
    List<VmActivities.WorkerTask> old = VmCalls.tasksHeld(taskName.get(), submission, life.get());
    requeue(why, eventType, null, moveDisk);
    old.forEach(t -> VmCalls.removeTask(name, submission, t));
  }

  /** Removes its task, if it may have one, then its rows; {@code why} it went, or null. */
  void delete(String why) {
    VmLife last = to(life.get().withRestartAt(0));
    VmActivities.VmRef vm = new VmActivities.VmRef(name, submission);
    if (Workflow.getVersion(DELETED_IN_ONE_TASK, Workflow.DEFAULT_VERSION, 1) == 1) {
      VmCalls.deleteWithTasks(
          "delete vm " + name,
          new VmActivities.Deletion(vm, VmCalls.tasksHeld(taskName.get(), submission, last)));
    } else {
      VmCalls.removeTasks(name, taskName.get(), submission, last);
      VmCalls.saying("delete vm " + name).deleteVm(vm);
    }
    VmShown.deleted(why);
  }

  /**
   * The version at which a deletion became one local activity (tasks, then rows) where it had been
   * an activity per task and one for the rows.
   */
  static final String DELETED_IN_ONE_TASK = "deleted-in-one-task";

  /** A restart due at {@code atMillis}, {@code delay} after its task ended. */
  void scheduleRestart(long atMillis, Duration delay, int inARow) {
    VmLife due = to(life.get().withRestartAt(atMillis));
    VmCalls.recordEvent(
        new VmActivities.VmEvent(
            name,
            "restart-scheduled",
            "restart "
                + (due.restartCount() + 1)
                + " scheduled for "
                + Instant.ofEpochMilli(due.restartAtMillis())
                + " ("
                + dev.rota.core.model.WrittenDuration.of(delay.toSeconds())
                + " after the task ended, "
                + inARow
                + " in a row)",
            due.restartAtMillis(),
            submission));
  }

  /** It stays failed, saying why it is not restarted; a user's start begins the count afresh. */
  void giveUp(String reason) {
    VmLife now = life.get();
    VmLife failed =
        to(now.withMessage((now.message() == null ? "failed" : now.message()) + "; " + reason));
    VmCalls.recordStatus(
        new VmActivities.StatusChange(
            name, failed.status().wireName(), failed.message(), "restarts-exhausted", submission));
  }

  /** Writes when its lease runs out, {@code why} (it began, or was extended) in its events. */
  void recordLease(String eventType, String why) {
    VmCalls.saying(why)
        .recordLease(
            new VmActivities.LeaseChange(
                name, lease.get().endsAtMillis(), eventType, why, submission));
  }

  /** Writes the lifecycle the task's events made. */
  void record() {
    VmLife now = life.get();
    VmCalls.recordLifecycle(name, taskId(now), now, submission);
  }

  private void status(VmLife life, String why, String eventType) {
    VmCalls.recordStatus(
        new VmActivities.StatusChange(name, life.status().wireName(), why, eventType, submission));
    shown.show(life);
  }

  private String taskId(VmLife life) {
    return taskName.get() + "." + life.restartCount();
  }
}
