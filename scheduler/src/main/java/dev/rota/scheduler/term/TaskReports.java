package dev.rota.scheduler.term;

import dev.rota.agentapi.TaskId;
import dev.rota.core.model.TaskState;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.core.scheduling.Reconciler;
import dev.rota.core.scheduling.Reconciliation;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.store.GroupCommit;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerRepository;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task states an agent reports as they change, between the scheduler's probes (as Nomad's clients
 * push allocation updates): a VM is {@code running} as soon as its agent says so, not a term later.
 * The same rule as the term's reconciliation decides ({@link Reconciler#reported}), and the same
 * writer records it ({@link TaskObservations}); a report that is not about the VM's current task on
 * that worker changes nothing. The report is answered once that is stored; the VMs' workflows are
 * told right after, on threads of their own ({@link AgentCalls#REPORTED_NEWS}), and through the
 * scheduler's outbox should this process die before it could. Answered only after the signals, a
 * report of 64 starts took 0.6 s under load, and its agent's threads, which start synthetic tasks
 * too, waited.
 */
@Singleton
public class TaskReports {
  private static final Logger log = LoggerFactory.getLogger(TaskReports.class);

  private static final String STARTING = dev.rota.agentapi.AgentTaskState.STARTING.wireName();

  private final VmRepository vms;
  private final dev.rota.store.VmEventRepository events;
  private final VmTaskRepository placed;
  private final TaskObservations observations;
  private final OutboxRepository actions;
  private final VmNotifier notifier;
  private final SchedulerWaker scheduler;
  private final WorkerRepository workers;
  private final GroupCommit commits;
  private final NewsBeingTold beingTold;
  private final java.util.concurrent.Executor telling;
  private final Clock clock;

  public TaskReports(
      VmRepository vms,
      VmTaskRepository placed,
      TaskObservations observations,
      OutboxRepository actions,
      VmNotifier notifier,
      SchedulerWaker scheduler,
      WorkerRepository workers,
      GroupCommit commits,
      NewsBeingTold beingTold,
      @jakarta.inject.Named(AgentCalls.REPORTED_NEWS) java.util.concurrent.ExecutorService telling,
      Clock clock,
      dev.rota.store.VmEventRepository events) {
    this.vms = vms;
    this.events = events;
    this.placed = placed;
    this.observations = observations;
    this.actions = actions;
    this.notifier = notifier;
    this.scheduler = scheduler;
    this.workers = workers;
    this.commits = commits;
    this.beingTold = beingTold;
    this.telling = telling;
    this.clock = clock;
  }

  private record Change(VmRow vm, VmTaskRow row, Reconciliation.TaskTransition transition) {}

  /**
   * Applies {@code worker}'s reports, which count as its heartbeat; returns how many tasks changed,
   * or nothing when no such worker is registered (its agent registers again). Their VMs' workflows
   * are told after it returns.
   */
  public Optional<Integer> accept(String worker, List<ObservedTask> tasks) {
    Instant now = clock.instant();
    java.util.concurrent.atomic.AtomicBoolean moveStarted =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean roomFreed =
        new java.util.concurrent.atomic.AtomicBoolean();
    List<OutboxRow> news =
        commits.write(
            GroupCommit.worker(worker),
            () -> {
              if (workers.heartbeat(worker, now) == 0) {
                return null;
              }
              // Changed in the order of the records' ids, as the term changes them: no deadlock
              // between the two.
              Map<String, Change> changes = new TreeMap<>();
              List<Reported> reported = parsed(tasks);
              Map<String, VmRow> vmsNamed = vmsOf(reported); // by task id
              Map<String, VmTaskRow> records = recordsOf(reported, vmsNamed);
              List<java.util.function.Supplier<Optional<OutboxRow>>> readinessWrites =
                  new ArrayList<>();
              for (Reported r : reported) {
                VmRow vm = vmsNamed.get(r.task().id());
                VmTaskRow row =
                    vm == null ? null : records.get(VmTaskRow.id(vm.seq(), r.task().id()));
                if (row != null) {
                  Reconciler.reported(Snapshots.task(row), Snapshots.vm(vm, now), worker, r.task())
                      .ifPresent(t -> changes.put(row.id(), new Change(vm, row, t)));
                  progress(vm, row, worker, r.id(), r.task(), now);
                  // After the transitions below: a task's first report may both start it and
                  // say it is ready.
                  readinessWrites.add(() -> readiness(vm, row, worker, r.id(), r.task(), now));
                }
              }
              List<TaskObservations.Reaching> reachings = new ArrayList<>();
              for (Change c : changes.values()) {
                if (c.transition().to() == TaskState.RUNNING
                    && c.vm().notes().movingFrom() != null) {
                  moveStarted.set(true);
                }
                if (Snapshots.task(c.row()).state().live() && !c.transition().to().live()) {
                  roomFreed.set(true);
                }
                Reconciliation.TaskTransition t = c.transition();
                if (t.to() != TaskState.RUNNING && log.isDebugEnabled()) {
                  log.debug(
                      "{} reported task {} of submission {} {}: {}",
                      worker,
                      c.row().taskId(),
                      c.vm().seq(),
                      t.to(),
                      t.message());
                }
                reachings.add(
                    new TaskObservations.Reaching(
                        c.row(),
                        t.to(),
                        t.exitCode(),
                        t.message(),
                        c.vm().createdAt(),
                        c.vm().notes().movingFrom() != null));
              }
              List<OutboxRow> written = new ArrayList<>(observations.reachedAll(reachings, now));
              readinessWrites.forEach(w -> w.get().ifPresent(written::add));
              return written;
            });
    if (news == null) {
      return Optional.empty();
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "{} reported {} tasks, {} changed: committed in {} ms",
          worker,
          tasks.size(),
          news.size(),
          java.time.Duration.between(now, clock.instant()).toMillis());
    }
    if (moveStarted.get()) {
      // Its old copy is the term's to stop: at once, not at the next interval.
      afterTheAnswer(() -> scheduler.wake("a move's new copy runs on " + worker));
    } else if (roomFreed.get()) {
      afterTheAnswer(() -> scheduler.roomFreed("room freed on " + worker));
    }
    if (!news.isEmpty()) {
      List<Long> ids = news.stream().map(OutboxRow::id).toList();
      beingTold.hold(ids);
      try {
        telling.execute(() -> tell(worker, news, ids));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        beingTold.release(ids); // shutting down: the outbox keeps them for the next scheduler
      }
    }
    return Optional.of(news.size());
  }

  /** A reported task whose id Rota made, parsed once. */
  private record Reported(ObservedTask task, TaskId id) {}

  /** The report's tasks with ids Rota made; any other is no VM's and changes nothing. */
  private static List<Reported> parsed(List<ObservedTask> tasks) {
    List<Reported> parsed = new ArrayList<>(tasks.size());
    for (ObservedTask task : tasks) {
      TaskId.parse(task.id()).ifPresent(id -> parsed.add(new Reported(task, id)));
    }
    return parsed;
  }

  /**
   * The VMs a report's tasks belong to, by task id, in one read whatever the report's size: the VM
   * whose tasks carry the id's name (its own, or a pool replica's it was claimed as), of the task's
   * submission when two do.
   */
  private Map<String, VmRow> vmsOf(List<Reported> reported) {
    List<String> names = reported.stream().map(r -> r.id().vm()).distinct().toList();
    Map<String, List<VmRow>> carrying = new java.util.HashMap<>();
    if (!names.isEmpty()) {
      vms.ofTasksNamed(names)
          .forEach(v -> carrying.computeIfAbsent(v.taskName(), n -> new ArrayList<>()).add(v));
    }
    Map<String, VmRow> byTask = new java.util.HashMap<>();
    for (Reported r : reported) {
      Long submission = r.task().submission();
      carrying.getOrDefault(r.id().vm(), List.of()).stream()
          .filter(v -> TaskId.sameSubmission(submission, v.seq()))
          .max(java.util.Comparator.comparingLong(VmRow::seq))
          .ifPresent(v -> byTask.put(r.task().id(), v));
    }
    return byTask;
  }

  /** The scheduler's records of a report's tasks, by record id, in one read. */
  private Map<String, VmTaskRow> recordsOf(List<Reported> reported, Map<String, VmRow> vmsNamed) {
    List<String> ids = new ArrayList<>();
    for (Reported r : reported) {
      VmRow vm = vmsNamed.get(r.task().id());
      if (vm != null) {
        ids.add(VmTaskRow.id(vm.seq(), r.task().id()));
      }
    }
    Map<String, VmTaskRow> records = new java.util.HashMap<>();
    if (!ids.isEmpty()) {
      placed.findByIdInList(ids).forEach(r -> records.put(r.id(), r));
    }
    return records;
  }

  /**
   * A task still starting that says how it gets on (its agent fetching the image: {@code pulling
   * 40% of 2048 MiB}) makes that the VM's status message and an event, while the task is its VM's
   * on this worker.
   */
  private void progress(
      VmRow vm, VmTaskRow row, String worker, TaskId id, ObservedTask task, Instant now) {
    if (!STARTING.equals(task.state())
        || task.message() == null
        || task.message().isBlank()
        || !worker.equals(row.worker())
        || id.restartCount() != vm.state().restartCount()) {
      return;
    }
    String message =
        task.message().length() > 512 ? task.message().substring(0, 512) : task.message();
    if (vms.starting(vm.name(), vm.seq(), vm.state().restartCount(), message) > 0) {
      events.append(vm.name(), now, "starting", message + " on " + worker);
    }
  }

  /**
   * What the readiness check of the VM's running task says ({@link TaskObservations#readiness}),
   * while the task is its VM's current one on this worker.
   */
  private Optional<OutboxRow> readiness(
      VmRow vm, VmTaskRow row, String worker, TaskId id, ObservedTask task, Instant now) {
    int generation = vm.state().restartCount();
    if (task.readiness() == null
        || !task.running()
        || !worker.equals(row.worker())
        || id.restartCount() != generation) {
      return Optional.empty();
    }
    return observations.readiness(vm, row, generation, task.readiness(), now);
  }

  /**
   * Tells each VM its news, after the report was answered; what cannot be told now is left to the
   * scheduler.
   */
  private void tell(String worker, List<OutboxRow> news, List<Long> ids) {
    boolean leftForTheScheduler = false;
    List<Long> told = new ArrayList<>();
    Set<Long> waiting = notifier.waitingForTheirStart(news);
    // Their starts hand their workflows the rows, which show this news.
    beingTold.release(List.copyOf(waiting));
    for (OutboxRow event : news) {
      if (waiting.contains(event.id())) {
        continue;
      }
      try {
        told.addAll(notifier.notify(event));
      } catch (VmNotifier.WorkflowNotStartedYet e) {
        beingTold.release(
            List.of(event.id())); // its start hands its workflow the row, which shows this
      } catch (RuntimeException e) {
        log.debug(
            "VM {} will hear of its task from the scheduler's outbox: {}",
            event.vm(),
            e.toString());
        beingTold.release(List.of(event.id()));
        leftForTheScheduler = true;
      }
    }
    if (told.isEmpty()) {
      beingTold.release(ids);
    } else {
      // With the next group commit rather than a commit of its own: should it be lost, the outbox
      // tells the VMs again, and their workflows ignore news they have had.
      commits
          .writeLater(GroupCommit.worker(worker), () -> actions.doneAll(told))
          .whenComplete((r, e) -> beingTold.release(ids));
    }
    if (leftForTheScheduler) {
      scheduler.wake("task reports from " + worker + " left notifications in the outbox");
    }
  }

  /** Wakes the scheduler after the answer, as news is told; shutting down, the next one will. */
  private void afterTheAnswer(Runnable wake) {
    try {
      telling.execute(wake);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("shutting down: the next scheduler's first term does what waking would");
    }
  }
}
