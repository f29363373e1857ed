package dev.rota.workflows.vm;

import dev.rota.core.lifecycle.HeldTasks;
import dev.rota.core.lifecycle.VmLife;
import dev.rota.workflows.ActivityDefaults;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The VM workflow's activities, each call's summary what it records or does, so that the Temporal
 * UI reads as the VM's life ("restart 2 scheduled for …", "failed: exited with code 3"). A stub is
 * cheap; one a call.
 */
final class VmCalls {
  private VmCalls() {}

  private static final ActivityOptions STORE = ActivityDefaults.store(Duration.ofMinutes(1));

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
   * Saving a guest's memory takes as long as its size needs (the agent allows 10 minutes); tried a
   * few times while its agent does not answer, never when it refuses.
   */
  private static final ActivityOptions SUSPEND =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofMinutes(12))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(2))
                  .setBackoffCoefficient(2)
                  .setMaximumInterval(Duration.ofSeconds(30))
                  .setMaximumAttempts(4)
                  .build())
          .build();

  /** The VM's activities, saying {@code summary}. */
  static VmActivities saying(String summary) {
    return Workflow.newActivityStub(
        VmActivities.class,
        ActivityOptions.newBuilder(STORE).setSummary(summary).build(),
        Map.of(
            "RemoveTask",
            ActivityOptions.newBuilder(AGENT).setSummary(summary).build(),
            "SuspendTask",
            ActivityOptions.newBuilder(SUSPEND).setSummary(summary).build(),
            "PauseTask",
            ActivityOptions.newBuilder(AGENT).setSummary(summary).build()));
  }

  /**
   * Its tasks removed, then its rows, within the workflow task that decided it: one workflow task
   * and no activity task, where an activity a step took three workflow tasks and two activity
   * tasks, for each replica of a set being deleted. A removal waits up to 25 s for its task to end,
   * for each of at most two.
   */
  static void deleteWithTasks(String summary, VmActivities.Deletion deletion) {
    Workflow.newLocalActivityStub(
            VmActivities.class,
            LocalActivityOptions.newBuilder(ActivityDefaults.storeLocal(Duration.ofMinutes(1)))
                .setStartToCloseTimeout(Duration.ofMinutes(1))
                .setSummary(summary)
                .build())
        .deleteWithTasks(deletion);
  }

  static void recordStatus(VmActivities.StatusChange change) {
    saying(change.status() + ": " + change.message()).recordStatus(change);
  }

  static void recordEvent(VmActivities.VmEvent event) {
    saying(event.message()).recordEvent(event);
  }

  /**
   * Records what the task events made of the VM in its read model: written often, quickly, within
   * the workflow task, so a local activity.
   */
  static void recordLifecycle(String name, String taskId, VmLife life, long submission) {
    Workflow.newLocalActivityStub(
            VmReadModel.class,
            LocalActivityOptions.newBuilder(ActivityDefaults.storeLocal(Duration.ofMinutes(1)))
                .setSummary(
                    life.status().wireName()
                        + (life.worker() == null ? "" : " on " + life.worker())
                        + " as "
                        + taskId
                        + (life.message() == null ? "" : ": " + life.message()))
                .build())
        .recordLifecycle(
            new VmLifecycle(
                name,
                life.restartCount(),
                life.status().wireName(),
                life.worker(),
                life.message(),
                life.exitCode(),
                life.lastTaskEventId(),
                life.scheduledAtMillis(),
                life.startedAtMillis(),
                life.finishedAtMillis(),
                submission));
  }

  /**
   * The tasks the VM may have: its current one, and while it moves, the old copy as well; their ids
   * are of {@code taskName}, the name its tasks carry.
   */
  static List<VmActivities.WorkerTask> tasksHeld(String taskName, long submission, VmLife life) {
    return HeldTasks.of(
            taskName,
            life.restartCount(),
            life.status(),
            life.worker(),
            life.movingFrom(),
            life.movingTo())
        .stream()
        .map(t -> new VmActivities.WorkerTask(t.worker(), t.taskId(), submission))
        .toList();
  }

  /**
   * Removes the tasks it may have; an unreachable agent does not stop the VM's life from moving on.
   */
  static void removeTasks(String name, String taskName, long submission, VmLife life) {
    tasksHeld(taskName, submission, life).forEach(t -> removeTask(name, submission, t));
  }

  /** What an activity that failed for good said: its own failure's message, not Temporal's. */
  static String reason(ActivityFailure e) {
    Throwable cause = e.getCause();
    if (cause instanceof io.temporal.failure.ApplicationFailure a) {
      return a.getOriginalMessage();
    }
    return cause == null ? e.getMessage() : cause.getMessage();
  }

  static void removeTask(String name, long submission, VmActivities.WorkerTask task) {
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
}
