package dev.rota.control;

import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.metrics.SchedulerMetrics;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.scheduler.settings.VmSettings;
import dev.rota.store.Columns;
import dev.rota.store.GroupCommit;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vm.VmLifecycle;
import dev.rota.workflows.vm.VmReadModel;
import dev.rota.workflows.vm.VmRecord;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

@Singleton
public class VmActivitiesImpl implements VmActivities, VmReadModel {
  private final VmRepository vms;
  private final VmEventRepository events;
  private final WorkerRepository workers;
  private final AgentClient agents;
  private final SchedulerWaker scheduler;
  private final VmSettings settings;
  private final AgentCallSettings agentCalls;
  private final Clock clock;
  private final VmSubmissions submissions;
  private final ControlWorkflows workflows;

  private final SchedulerMetrics metrics;
  private final GroupCommit commits;
  private final VmLeftovers leftovers;
  private final dev.rota.store.VmTaskRepository vmTasks;

  public VmActivitiesImpl(
      VmRepository vms,
      VmEventRepository events,
      WorkerRepository workers,
      AgentClient agents,
      SchedulerWaker scheduler,
      VmSettings settings,
      AgentCallSettings agentCalls,
      Clock clock,
      VmSubmissions submissions,
      ControlWorkflows workflows,
      SchedulerMetrics metrics,
      GroupCommit commits,
      VmLeftovers leftovers,
      dev.rota.store.VmTaskRepository vmTasks) {
    this.vmTasks = vmTasks;
    this.leftovers = leftovers;
    this.metrics = metrics;
    this.commits = commits;
    this.vms = vms;
    this.events = events;
    this.workers = workers;
    this.agents = agents;
    this.scheduler = scheduler;
    this.settings = settings;
    this.agentCalls = agentCalls;
    this.clock = clock;
    this.submissions = submissions;
    this.workflows = workflows;
  }

  @Override
  public VmRecord load(VmRef vm) {
    return vms.findById(vm.vm()).map(v -> record(v, settings)).orElse(null);
  }

  /** The VM as its workflow starts from: its row, and this host's restart settings. */
  static VmRecord record(VmRow v, VmSettings settings) {
    return new VmRecord(
        v.state().status(),
        v.state().worker(),
        v.state().restartCount(),
        v.spec().restartPolicy(),
        Columns.millis(v.state().startedAt()),
        Columns.millis(v.state().finishedAt()),
        settings.restartDelay().toMillis(),
        settings.maxRestartDelay().toMillis(),
        v.state().taskEventId(),
        v.notes().movingFrom(),
        v.spec().maxRestarts(),
        v.spec().restartWindowSeconds() == null ? 0 : v.spec().restartWindowSeconds() * 1000L,
        v.spec().ttlSecondsAfterFinished(),
        Columns.millis(v.state().scheduledAt()),
        Columns.millis(v.state().restartAt()),
        readiness(v),
        v.spec().maxRunSeconds(),
        v.spec().onExpiry(),
        Columns.millis(v.state().leaseExpiresAt()),
        v.spec().persistentDisk(),
        dev.rota.core.lifecycle.SuspendRule.refusal(
            v.spec().runtime(),
            v.spec().image(),
            v.spec().persistentDisk(),
            // A pool that keeps its replicas suspended suspends them itself.
            v.membership().standby() ? null : v.membership().vmSet()),
        dev.rota.core.lifecycle.SuspendRule.pauseRefusal(
            v.spec().runtime(), v.membership().vmSet()),
        v.membership().taskName());
  }

  /** What the VM's agent last said of its readiness, as the store holds it. */
  private static dev.rota.core.lifecycle.HeardReadiness readiness(VmRow v) {
    dev.rota.store.VmReadiness r = v.readiness();
    return new dev.rota.core.lifecycle.HeardReadiness(
        v.checksReadiness(),
        r.generation() == null ? -1 : r.generation(),
        Columns.millis(r.since()),
        r.since() == null ? r.message() : null,
        0);
  }

  @Override
  @Transactional
  public void recordStatus(StatusChange change) {
    if (vms.recordStatus(change.vm(), change.submission(), change.status(), change.message())
        == 1) {
      events.append(change.vm(), clock.instant(), change.eventType(), change.message());
    }
  }

  @Override
  public void recordLifecycle(VmLifecycle l) {
    commits.write(
        GroupCommit.vm(l.vm()),
        () ->
            vms.recordLifecycle(
                l.vm(),
                l.submission(),
                l.restartCount(),
                l.status(),
                l.worker(),
                l.message(),
                l.exitCode(),
                l.taskEventId(),
                instant(l.scheduledAtMillis()),
                instant(l.startedAtMillis()),
                instant(l.finishedAtMillis())));
  }

  private static Instant instant(long millis) {
    return millis == 0 ? null : Instant.ofEpochMilli(millis);
  }

  @Override
  @Transactional
  public void recordEvent(VmEvent event) {
    if (vms.countOf(event.vm(), event.submission()) == 0) {
      return; // deleted, or the name is a later submission's now
    }
    if (event.restartAtMillis() != null) {
      vms.restartAt(event.vm(), event.submission(), Instant.ofEpochMilli(event.restartAtMillis()));
    }
    events.append(event.vm(), clock.instant(), event.type(), event.message());
  }

  @Override
  public void requeue(Requeue r) {
    if (r.moveDisk()) {
      // First: a requeue tried again finds the disk's move noted already.
      vms.findById(r.vm())
          .filter(v -> VmSubmissions.holds(v, r.submission()))
          .ifPresent(v -> vms.moveDisk(v.name(), v.seq()));
    }
    if (vms.requeue(
            r.vm(),
            r.submission(),
            r.restartCount(),
            r.message(),
            r.failedOn(),
            clock.instant(),
            r.leaseEndsAtMillis() == 0 ? null : Instant.ofEpochMilli(r.leaseEndsAtMillis()))
        == 1) {
      events.append(r.vm(), clock.instant(), r.eventType(), r.message());
      if (r.eventType().equals("restarted")) {
        metrics.restarted(r.failedOn() != null);
      }
      scheduler.wake("vm " + r.vm() + " " + r.eventType());
    }
  }

  @Override
  @Transactional
  public void recordLease(LeaseChange change) {
    if (vms.recordLease(
            change.vm(), change.submission(), Instant.ofEpochMilli(change.endsAtMillis()))
        == 1) {
      events.append(change.vm(), clock.instant(), change.eventType(), change.message());
    }
  }

  /**
   * Removes the task from its worker (the agent answers once it has ended); the room it held is
   * free at once, for a VM that waits for it.
   */
  @Override
  public void removeTask(WorkerTask task) {
    leftovers.removeTask(task);
  }

  /**
   * Saves the task's memory through its agent, then notes where it is; a refusal (the VM cannot be
   * suspended, its task no longer runs) is the answer, not tried again.
   */
  @Override
  public long suspendTask(WorkerTask task) {
    dev.rota.store.WorkerRow worker = workerOf(task.worker());
    long bytes;
    try {
      bytes = agents.suspendTask(worker.agent(), task.taskId(), agentCalls.suspendTimeout());
    } catch (dev.rota.agentapi.AgentRejectedException e) {
      throw refused(e);
    }
    String taskName = dev.rota.agentapi.TaskId.parse(task.taskId()).map(t -> t.vm()).orElseThrow();
    vms.ofTask(taskName, task.submission())
        .ifPresent(v -> vms.memorySaved(v.name(), v.seq(), task.worker()));
    return bytes;
  }

  @Override
  public void pauseTask(PauseTask pause) {
    try {
      agents.pauseTask(
          workerOf(pause.worker()).agent(), pause.taskId(), pause.pause(), agentCalls.timeout());
    } catch (dev.rota.agentapi.AgentRejectedException e) {
      throw refused(e);
    }
  }

  /** The worker a task is on; gone, the call is refused for good. */
  private dev.rota.store.WorkerRow workerOf(String name) {
    return workers
        .findById(name)
        .orElseThrow(
            () ->
                io.temporal.failure.ApplicationFailure.newNonRetryableFailure(
                    "worker " + name + " is gone", "WorkerGone"));
  }

  /** An agent's refusal, as the activity's answer: not tried again. */
  private static io.temporal.failure.ApplicationFailure refused(
      dev.rota.agentapi.AgentRejectedException e) {
    return io.temporal.failure.ApplicationFailure.newNonRetryableFailure(
        e.getMessage(), "AgentRefused");
  }

  /**
   * Deletes the VM's persistent disk from the worker that holds it, its task removed already. An
   * agent that refuses or does not answer fails the activity, which is tried again: the rows go
   * only once the disk has (or its worker is gone).
   */
  private void deleteDisk(VmRow vm) {
    String on = vm.notes().diskOn();
    if (on == null) {
      return;
    }
    workers
        .findById(on)
        .ifPresent(w -> agents.deleteDisk(w.agent(), vm.diskId(), agentCalls.timeout()));
  }

  @Override
  public void deleteWithTasks(Deletion deletion) {
    leftovers.removeOrLeave(deletion.vm().vm(), withPlaced(deletion));
    deleteVm(deletion.vm());
  }

  /**
   * The tasks a deletion removes: those its workflow knows of, and any other the scheduler placed
   * for the submission and has not seen end (a placement whose news the workflow had not had yet):
   * once the rows are gone no term counts such a task as holding its worker's room, so left
   * running, it would run beside the VM placed in its room.
   */
  private java.util.List<WorkerTask> withPlaced(Deletion deletion) {
    java.util.List<WorkerTask> all = new java.util.ArrayList<>(deletion.tasks());
    java.util.Set<String> known = new java.util.HashSet<>();
    all.forEach(t -> known.add(t.worker() + "/" + t.taskId()));
    for (dev.rota.store.VmTaskRow t :
        vmTasks.findByVmAndVmSeq(deletion.vm().vm(), deletion.vm().submission())) {
      boolean live =
          dev.rota.core.model.WireName.parse(dev.rota.core.model.TaskState.class, t.state())
              .map(dev.rota.core.model.TaskState::live)
              .orElse(true);
      if (live && known.add(t.worker() + "/" + t.taskId())) {
        all.add(new WorkerTask(t.worker(), t.taskId(), t.vmSeq()));
      }
    }
    return all;
  }

  /**
   * Removes the VM's rows; a replica's set hears of it at once, so that it can replace or forget
   * it. A set being deleted hears only of its last replica's going (its workflow then removes the
   * set's row and ends): a thousand replicas would otherwise be a thousand signals in its history
   * and a pass for each few. Each replica's count is read after its own removal commits, so the
   * last of several removed at once finds none left; the set's pass after a short wait backs this
   * up.
   */
  @Override
  public void deleteVm(VmRef vm) {
    Optional<VmRow> row = vms.findById(vm.vm());
    if (row.filter(v -> !VmSubmissions.holds(v, vm.submission())).isPresent()) {
      return; // deleted by an earlier attempt, and the name submitted again since
    }
    String set = row.map(v -> v.membership().vmSet()).orElse(null);
    row.ifPresent(leftovers::forgetLogs);
    row.ifPresent(this::deleteDisk);
    submissions.remove(vm.vm(), vm.submission());
    if (set != null && !vms.deletingSetHasReplicasLeft(set)) {
      workflows.setChanged(set);
    }
    if (row.map(v -> v.state().worker()).isPresent()) {
      // What its task held counts no more: a VM waiting for room has it now.
      scheduler.roomFreed("vm " + vm.vm() + " deleted");
    }
  }
}
