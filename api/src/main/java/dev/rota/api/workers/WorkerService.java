package dev.rota.api.workers;

import dev.rota.api.Conflicts;
import dev.rota.api.Quantities;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.Problems;
import dev.rota.control.ControlWorkflows;
import dev.rota.model.WorkerHealth;
import dev.rota.scheduler.term.TaskReports;
import dev.rota.scheduling.ObservedTask;
import dev.rota.store.Allocation;
import dev.rota.store.GroupCommit;
import dev.rota.store.Sql;
import dev.rota.store.WorkerAllocations;
import dev.rota.store.WorkerImages;
import dev.rota.store.WorkerRemoval;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import jakarta.inject.Singleton;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The worker registry. Registration and pauses are desired state; health is the scheduler's. */
@Singleton
public class WorkerService {

  private final WorkerRepository workers;
  private final ControlWorkflows control;
  private final TaskReports taskReports;
  private final WorkerImages images;
  private final WorkerRemoval removal;
  private final WorkerAllocations allocations;
  private final Clock clock;
  private final GroupCommit commits;
  private final PendingHeartbeats heartbeats;

  public WorkerService(
      WorkerRepository workers,
      ControlWorkflows control,
      TaskReports taskReports,
      WorkerImages images,
      WorkerRemoval removal,
      WorkerAllocations allocations,
      Clock clock,
      GroupCommit commits,
      PendingHeartbeats heartbeats) {
    this.commits = commits;
    this.heartbeats = heartbeats;
    this.allocations = allocations;
    this.removal = removal;
    this.workers = workers;
    this.images = images;
    this.taskReports = taskReports;
    this.control = control;
    this.clock = clock;
  }

  /** The result of a registration: whether it created the worker. */
  public record Registration(WorkerView worker, boolean created) {}

  public Registration register(WorkerRequest request) {
    requireHttpUrl(request.endpoint());
    boolean https = request.endpoint().startsWith("https://");
    if (https && request.certificateSha256() == null) {
      throw Problems.badRequest(
          "certificateSha256",
          "is required with an https endpoint: the controller trusts the agent's "
              + "certificate by this pin, not by a CA");
    }
    if (!https && request.certificateSha256() != null) {
      throw Problems.badRequest(
          "certificateSha256",
          "pins an HTTPS certificate, and the endpoint " + request.endpoint() + " is plain http");
    }
    Instant now = clock.instant();
    Map<String, Long> resources =
        request.resources() == null ? Map.of() : Quantities.parse("resources", request.resources());
    Map<String, String> labels =
        request.labels() == null ? Map.of() : new TreeMap<>(request.labels());
    List<String> runtimes =
        request.runtimes() == null ? List.of("process") : List.copyOf(request.runtimes());
    Map<String, Instant> held = request.images() == null ? null : HeldImage.parse(request.images());
    List<String> notices = request.notices() == null ? List.of() : request.notices();
    // Raced with another registration (a duplicate insert) or the scheduler (a stale version): read
    // again.
    Registration result =
        Conflicts.retry(
            () -> {
              var existing = workers.findById(request.name());
              if (existing.isPresent()) {
                WorkerRow row = existing.get();
                if (row.machineId() != null
                    && request.machineId() != null
                    && !row.machineId().equals(request.machineId())) {
                  throw Problems.conflict(
                      "worker '"
                          + row.name()
                          + "' is registered by another machine (machineId "
                          + row.machineId()
                          + ")");
                }
                if (row.certificateSha256() != null
                    && !row.certificateSha256().equals(request.certificateSha256())) {
                  // Another certificate (or none) under a pinned name: another machine, or a man in
                  // the middle.
                  throw Problems.conflict(
                      "worker '"
                          + row.name()
                          + "' has certificate sha256 "
                          + row.certificateSha256()
                          + " pinned, and this registration "
                          + (request.certificateSha256() == null ? "has none" : "has another")
                          + "; if its agent was set up anew, delete the worker (DELETE /v1/workers/"
                          + row.name()
                          + ") to pin the new one");
                }
                WorkerRow updated =
                    workers.update(
                        row.reregistered(
                                request.endpoint(),
                                resources,
                                labels,
                                runtimes,
                                request.machineId(),
                                now)
                            .withAgent(request.agentSecret(), request.certificateSha256())
                            .withNotices(notices));
                return new Registration(viewHolding(updated, held), false);
              }
              WorkerRow created =
                  workers.save(
                      WorkerRow.registered(
                              request.name(),
                              request.endpoint(),
                              resources,
                              labels,
                              runtimes,
                              request.machineId(),
                              WorkerHealth.NOT_READY.wireName(),
                              "waiting for the agent's readiness probe",
                              now)
                          .withAgent(request.agentSecret(), request.certificateSha256())
                          .withNotices(notices));
              return new Registration(viewHolding(created, held), true);
            },
            e ->
                Sql.isUniqueViolation(e)
                    || e instanceof io.micronaut.data.exceptions.OptimisticLockException);
    control.wakeScheduler("worker " + request.name() + " registered");
    return result;
  }

  public Page<WorkerView> list(PageRequest page) {
    List<WorkerRow> rows = workers.page(page.afterName(), page.fetchSize());
    Map<String, WorkerView> shown = new HashMap<>();
    views(rows).forEach(v -> shown.put(v.name(), v));
    return page.page(rows, WorkerRow::name, r -> shown.get(r.name()));
  }

  /** Every worker as shown: a watch's snapshot. */
  public List<WorkerView> all() {
    List<WorkerRow> rows = new java.util.ArrayList<>();
    workers.findAll().forEach(rows::add);
    rows.sort(java.util.Comparator.comparing(WorkerRow::name));
    return views(rows);
  }

  /** The worker as shown, if it exists. */
  public java.util.Optional<WorkerView> view(String name) {
    return workers.findById(name).map(this::view);
  }

  private List<WorkerView> views(List<WorkerRow> rows) {
    List<String> names = rows.stream().map(WorkerRow::name).toList();
    Map<String, Allocation> allocations = allocations(names);
    Map<String, Map<String, Instant>> held = images.of(names);
    return rows.stream()
        .map(
            r ->
                WorkerView.of(
                    r,
                    allocations.getOrDefault(r.name(), Allocation.NONE),
                    held.getOrDefault(r.name(), Map.of())))
        .toList();
  }

  public WorkerView get(String name) {
    return view(find(name));
  }

  /** A heartbeat moves {@code lastSeen} only: it never undoes a pause. */
  public void heartbeat(String name) {
    if (heartbeats.beat(name, clock.instant()) == 0) {
      throw Problems.notFound("worker", name);
    }
  }

  /** A heartbeat that may say what images the worker holds now; without them, the same as above. */
  public void heartbeat(String name, HeartbeatRequest request) {
    if (request.images() == null) {
      heartbeat(name);
    } else if (heartbeatHolding(name, HeldImage.parse(request.images())) == 0) {
      throw Problems.notFound("worker", name);
    }
  }

  private int heartbeatHolding(String name, Map<String, Instant> held) {
    Instant now = clock.instant();
    return commits.write(GroupCommit.worker(name), () -> images.heartbeat(name, now, held));
  }

  /**
   * Task states from the worker's agent, counting as a heartbeat; the worker must be known, or its
   * agent registers again.
   */
  public void reportTasks(String name, TaskReportRequest report) {
    List<ObservedTask> tasks =
        report.tasks().stream()
            .map(t -> new ObservedTask(t.id(), t.state(), t.exitCode(), t.message()))
            .toList();
    if (taskReports.accept(name, tasks).isEmpty()) {
      throw Problems.notFound("worker", name);
    }
  }

  /** {@code PATCH}: only {@code schedulingPaused} may change. */
  public WorkerView patch(String name, Map<String, Object> body) {
    if (body.isEmpty()) {
      throw Problems.badRequest("schedulingPaused", "is required, true or false");
    }
    for (String field : new java.util.TreeSet<>(body.keySet())) {
      if (!field.equals("schedulingPaused")) {
        throw Problems.badRequest(field, "cannot be changed; only schedulingPaused can");
      }
    }
    if (!(body.get("schedulingPaused") instanceof Boolean paused)) {
      throw Problems.badRequest(
          "schedulingPaused", "must be true or false, got " + body.get("schedulingPaused"));
    }
    // The scheduler writes health under the same version: read again and reapply when it got there
    // first.
    // A resume ends a drain as well (kubectl uncordon).
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
      control.wakeScheduler("worker " + name + " resumed");
    }
    return view(updated);
  }

  /**
   * Drains the worker: it takes no new VMs; the scheduler moves those with a restart policy
   * elsewhere (each started there before its old task goes) and, at the deadline, evicts what is
   * left. Asked again, the deadline is the new one; a resume ends it.
   */
  public WorkerView drain(String name, DrainRequest request) {
    Instant now = clock.instant();
    Instant deadline = request.deadlineFrom(now);
    WorkerRow updated = Conflicts.retry(() -> workers.update(find(name).withDrain(deadline, now)));
    control.wakeScheduler("worker " + name + " draining");
    return view(updated);
  }

  /** Unconditional: a user's delete does not lose to the scheduler's health write. */
  public void delete(String name) {
    find(name);
    removal.remove(name);
    control.wakeScheduler("worker " + name + " deleted");
  }

  private WorkerRow find(String name) {
    return workers.findById(name).orElseThrow(() -> Problems.notFound("worker", name));
  }

  private WorkerView view(WorkerRow row) {
    return viewHolding(row, null);
  }

  /**
   * @param held what its agent just said it holds, written first; null: as stored
   */
  private WorkerView viewHolding(WorkerRow row, Map<String, Instant> held) {
    if (held != null) {
      images.held(row.name(), held);
    }
    Map<String, Instant> shown =
        held != null ? held : images.of(List.of(row.name())).getOrDefault(row.name(), Map.of());
    return WorkerView.of(
        row, allocations(List.of(row.name())).getOrDefault(row.name(), Allocation.NONE), shown);
  }

  private Map<String, Allocation> allocations(List<String> names) {
    return allocations.of(names);
  }

  private static void requireHttpUrl(String endpoint) {
    try {
      URI uri = new URI(endpoint);
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null) {
        throw new IllegalArgumentException();
      }
    } catch (Exception e) {
      throw Problems.badRequest(
          "endpoint", "must be an http or https URL such as http://10.0.0.5:9101, got " + endpoint);
    }
  }
}
