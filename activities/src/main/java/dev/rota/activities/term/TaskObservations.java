package dev.rota.activities.term;

import dev.rota.agentapi.TaskId;
import dev.rota.store.Columns;
import dev.rota.store.TermActionRepository;
import dev.rota.store.TermActionRow;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.model.TaskEventType;
import dev.rota.model.TaskState;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.Optional;

/**
 * The one writer of observed task state, for the term and for agents' reports between terms alike.
 * Each change is conditional on the state it changes from, and is written with its line in the VM's
 * event log and its task event for the VM's workflow (the outbox), in the caller's transaction: an
 * observation is never recorded without the news of it, nor the news sent without the observation.
 */
@Singleton
public class TaskObservations {
  private final VmTaskRepository tasks;
  private final VmRepository vms;
  private final VmEventRepository events;
  private final TermActionRepository outbox;

  public TaskObservations(VmTaskRepository tasks, VmRepository vms, VmEventRepository events, TermActionRepository outbox) {
    this.tasks = tasks;
    this.vms = vms;
    this.events = events;
    this.outbox = outbox;
  }

  /**
   * Places generation {@code generation} of the VM's submission {@code vmSeq} on {@code worker}, with
   * the action that starts it; empty when the VM's workflow no longer wants it or it is placed.
   */
  public Optional<TermActionRow> place(String vm, long vmSeq, int generation, String worker, Instant now) {
    String taskId = TaskId.of(vm, generation).toString();
    if (tasks.place(VmTaskRow.id(vmSeq, taskId), vm, vmSeq, generation, worker, now) != 1) {
      return Optional.empty();
    }
    vms.placed(vm);
    outbox.add(TermActionRow.START, worker, taskId, vm, vmSeq, null, now);
    String message = "scheduled on worker " + worker + " as task " + taskId;
    return Optional.of(tell(vm, vmSeq, taskId, worker, TaskEventType.PLACED, "scheduled", null, message, now, null));
  }

  /** The task reached {@code to}; empty when it had already moved on (the other observer was first). */
  public Optional<TermActionRow> reached(VmTaskRow task, TaskState to, Integer exitCode, String message, Instant now) {
    String text = Columns.truncate(message, 2048);
    int changed =
        to == TaskState.RUNNING
            ? tasks.started(task.id(), now, text)
            : tasks.ended(task.id(), to.wireName(), exitCode, text, now);
    if (changed != 1) {
      return Optional.empty();
    }
    boolean clean = to == TaskState.EXITED && Integer.valueOf(0).equals(exitCode);
    String logType = to == TaskState.RUNNING ? "started" : clean ? "exited" : "failed";
    Instant startedAt = to == TaskState.RUNNING ? now : task.startedAt();
    return Optional.of(tell(task.vm(), task.vmSeq(), task.taskId(), task.worker(), TaskEventType.reaching(to), logType,
        exitCode, message, now, startedAt));
  }

  /** The worker could not start the task: its record goes, so that the VM is placed again elsewhere. */
  public Optional<TermActionRow> givenBack(VmTaskRow task, String message, Instant avoidUntil, Instant now) {
    if (tasks.givenBack(task.id()) != 1) {
      return Optional.empty();
    }
    vms.avoid(task.vm(), task.worker(), avoidUntil);
    return Optional.of(tell(task.vm(), task.vmSeq(), task.taskId(), task.worker(), TaskEventType.GIVEN_BACK,
        "start-failed", null, message, now, null));
  }

  private TermActionRow tell(
      String vm, long vmSeq, String taskId, String worker, TaskEventType type, String logType, Integer exitCode,
      String message, Instant now, Instant startedAt) {
    String text = Columns.truncate(message, 2048);
    events.append(vm, now, logType, Columns.truncate(message, 4096));
    long id = outbox.nextId();
    outbox.addEvent(id, worker, taskId, vm, vmSeq, type.wireName(), exitCode, text, now, startedAt);
    return new TermActionRow(id, TermActionRow.NOTIFY, worker, taskId, vm, text, now, 0, vmSeq, type.wireName(),
        exitCode, startedAt);
  }
}
