package dev.rota.control;

import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.scheduler.term.TaskReports;
import dev.rota.store.Conflicts;
import dev.rota.store.GroupCommit;
import dev.rota.store.Sql;
import dev.rota.store.WorkerImages;
import dev.rota.store.WorkerRemoval;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.exceptions.OptimisticLockException;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What agents and users ask of the worker registry: registration, heartbeats and task reports from
 * agents; pauses, drains and deletes from users. Registration and pauses are desired state; a
 * worker's health is the scheduler's, which writes it under the same version, so a user's change
 * that lost to it is read again and reapplied.
 */
@Singleton
public class WorkerCommands {
  private final WorkerRepository workers;
  private final ControlWorkflows workflows;
  private final TaskReports taskReports;
  private final WorkerImages images;
  private final WorkerRemoval removal;
  private final GroupCommit commits;
  private final PendingHeartbeats heartbeats;
  private final Clock clock;

  public WorkerCommands(
      WorkerRepository workers,
      ControlWorkflows workflows,
      TaskReports taskReports,
      WorkerImages images,
      WorkerRemoval removal,
      GroupCommit commits,
      PendingHeartbeats heartbeats,
      Clock clock) {
    this.workers = workers;
    this.workflows = workflows;
    this.taskReports = taskReports;
    this.images = images;
    this.removal = removal;
    this.commits = commits;
    this.heartbeats = heartbeats;
    this.clock = clock;
  }

  /**
   * What an agent registers: where it answers and by which certificate, what it offers, and the
   * images it holds (null: not said), and the build it is (null: not said).
   */
  public record Registering(
      String name,
      String endpoint,
      @Nullable String certificateSha256,
      @Nullable String agentSecret,
      @Nullable String machineId,
      Map<String, Long> resources,
      Map<String, String> labels,
      List<String> runtimes,
      List<String> notices,
      @Nullable Map<String, Instant> images,
      @Nullable String agentVersion) {}

  /** The worker as registered, and whether this registration created it. */
  public record Registration(WorkerRow worker, boolean created) {}

  /**
   * Registers the worker, or registers it again; {@link Refused} if the name is another machine's
   * (another {@code machineId}) or pinned to another certificate.
   */
  public Registration register(Registering r) {
    Instant now = clock.instant();
    // Raced with another registration (a duplicate insert) or the scheduler (a stale version): read
    // again.
    Registration result =
        Conflicts.retry(
            () ->
                workers
                    .findById(r.name())
                    .map(row -> new Registration(workers.update(again(row, r, now)), false))
                    .orElseGet(
                        () ->
                            new Registration(
                                workers.save(
                                    WorkerRow.registered(
                                            r.name(),
                                            r.endpoint(),
                                            r.resources(),
                                            r.labels(),
                                            r.runtimes(),
                                            r.machineId(),
                                            WorkerHealth.NOT_READY.wireName(),
                                            "waiting for the agent's readiness probe",
                                            now)
                                        .withAgent(
                                            r.agentSecret(),
                                            r.certificateSha256(),
                                            r.agentVersion())
                                        .withNotices(r.notices())),
                                true)),
            e -> Sql.isUniqueViolation(e) || e instanceof OptimisticLockException);
    if (r.images() != null) {
      images.held(r.name(), r.images());
    }
    workflows.wakeScheduler("worker " + r.name() + " registered");
    return result;
  }

  private static WorkerRow again(WorkerRow row, Registering r, Instant now) {
    if (row.machineId() != null
        && r.machineId() != null
        && !row.machineId().equals(r.machineId())) {
      throw new Refused(
          "worker '"
              + row.name()
              + "' is registered by another machine (machineId "
              + row.machineId()
              + ")");
    }
    if (row.certificateSha256() != null && !row.certificateSha256().equals(r.certificateSha256())) {
      // Another certificate (or none) under a pinned name: another machine, or a man in the middle.
      throw new Refused(
          "worker '"
              + row.name()
              + "' has certificate sha256 "
              + row.certificateSha256()
              + " pinned, and this registration "
              + (r.certificateSha256() == null ? "has none" : "has another")
              + "; if its agent was set up anew, delete the worker (DELETE /v1/workers/"
              + row.name()
              + ") to pin the new one");
    }
    return row.reregistered(
            r.endpoint(), r.resources(), r.labels(), r.runtimes(), r.machineId(), now)
        .withAgent(r.agentSecret(), r.certificateSha256(), r.agentVersion())
        .withNotices(r.notices());
  }

  /**
   * A heartbeat moves {@code lastSeen} only, never undoing a pause; with {@code held}, it also says
   * what images the worker holds now, and {@code pulls} what it is fetching.
   */
  public void heartbeat(
      String name,
      @Nullable Map<String, Instant> held,
      Map<String, dev.rota.store.WorkerPull> pulls) {
    Instant now = clock.instant();
    int seen =
        held == null
            ? heartbeats.beat(name, now)
            : commits.write(
                GroupCommit.worker(name), () -> images.heartbeat(name, now, held, pulls));
    if (seen == 0) {
      throw new NotFound("worker", name);
    }
  }

  /**
   * Task states from the worker's agent, counting as a heartbeat; the worker must be known, or its
   * agent registers again.
   */
  public void reportTasks(String name, List<ObservedTask> tasks) {
    if (taskReports.accept(name, tasks).isEmpty()) {
      throw new NotFound("worker", name);
    }
  }

  /**
   * Pauses or resumes scheduling onto the worker; a resume ends a drain as well (kubectl uncordon).
   */
  public WorkerRow setPaused(String name, boolean paused) {
    WorkerRow updated =
        Conflicts.retry(
            () -> {
              WorkerRow row = find(name);
              WorkerRow changed =
                  paused
                      ? row.withPaused(true)
                      : row.withPaused(false).withDrain(null, clock.instant());
              return changed.equals(row) ? row : workers.update(changed);
            });
    if (!paused) {
      workflows.wakeScheduler("worker " + name + " resumed");
    }
    return updated;
  }

  /**
   * Drains the worker: it takes no new VMs; the scheduler moves those with a restart policy
   * elsewhere (each started there before its old task goes) and, at the deadline, evicts what is
   * left. Asked again, the deadline is the new one; a resume ends it.
   */
  public WorkerRow drain(String name, Instant deadline) {
    Instant now = clock.instant();
    WorkerRow updated = Conflicts.retry(() -> workers.update(find(name).withDrain(deadline, now)));
    workflows.wakeScheduler("worker " + name + " draining");
    return updated;
  }

  /** Unconditional: a user's delete does not lose to the scheduler's health write. */
  public void delete(String name) {
    find(name);
    removal.remove(name);
    workflows.wakeScheduler("worker " + name + " deleted");
  }

  private WorkerRow find(String name) {
    return workers.findById(name).orElseThrow(() -> new NotFound("worker", name));
  }
}
