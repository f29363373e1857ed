package dev.rota.api.workers;

import dev.rota.api.Quantities;
import dev.rota.api.paging.LabelSelector;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.Problems;
import dev.rota.control.WorkerCommands;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.store.Allocation;
import dev.rota.store.WorkerAllocations;
import dev.rota.store.WorkerImages;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The worker registry as the API takes and shows it: requests checked and turned into what {@link
 * WorkerCommands} does, rows into views with what each worker holds.
 */
@Singleton
public class WorkerService {

  private final WorkerRepository workers;
  private final WorkerCommands commands;
  private final WorkerImages images;
  private final WorkerAllocations allocations;
  private final Clock clock;

  private final dev.rota.store.VolumeRepository volumes;

  public WorkerService(
      WorkerRepository workers,
      WorkerCommands commands,
      WorkerImages images,
      WorkerAllocations allocations,
      Clock clock,
      dev.rota.store.VolumeRepository volumes) {
    this.volumes = volumes;
    this.workers = workers;
    this.commands = commands;
    this.images = images;
    this.allocations = allocations;
    this.clock = clock;
  }

  /** The result of a registration: whether it created the worker. */
  public record Registration(WorkerView worker, boolean created) {}

  /**
   * Registers a worker; {@code userAgent} is the agent's {@code User-Agent} header, whose {@code
   * rota-agent/BUILD} names the build it is (a header, so that an agent newer than this controller
   * registers all the same).
   */
  public Registration register(WorkerRequest request, @Nullable String userAgent) {
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
    WorkerCommands.Registration registered =
        commands.register(
            new WorkerCommands.Registering(
                request.name(),
                request.endpoint(),
                request.certificateSha256(),
                request.agentSecret(),
                request.machineId(),
                request.resources() == null
                    ? Map.of()
                    : Quantities.parse("resources", request.resources()),
                request.labels() == null ? Map.of() : new TreeMap<>(request.labels()),
                request.runtimes() == null ? List.of("process") : List.copyOf(request.runtimes()),
                request.notices() == null ? List.of() : request.notices(),
                request.images() == null ? null : HeldImage.parse(request.images()),
                dev.rota.agentapi.RotaBuild.fromUserAgent("rota-agent", userAgent).orElse(null)));
    return new Registration(view(registered.worker()), registered.created());
  }

  public Page<WorkerView> list(LabelSelector selector, PageRequest page) {
    List<WorkerRow> rows =
        selector.pairs().isEmpty()
            ? workers.page(page.afterName(), page.fetchSize())
            : page.kept(
                (last, n) -> workers.page(last == null ? page.afterName() : last.name(), n),
                r -> selector.matches(r.labels()));
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
    Map<String, List<String>> disks = this.allocations.disks(names);
    Map<String, List<String>> volumesOn = new HashMap<>();
    if (!names.isEmpty()) {
      volumes
          .findHeldOn(names)
          .forEach(
              v ->
                  volumesOn
                      .computeIfAbsent(v.worker(), w -> new java.util.ArrayList<>())
                      .add(v.name()));
    }
    return rows.stream()
        .map(
            r ->
                WorkerView.of(
                    r,
                    allocations.getOrDefault(r.name(), Allocation.NONE),
                    held.getOrDefault(r.name(), Map.of()),
                    disks.getOrDefault(r.name(), List.of()),
                    volumesOn.getOrDefault(r.name(), List.of())))
        .toList();
  }

  public WorkerView get(String name) {
    return view(find(name));
  }

  /** A heartbeat moves {@code lastSeen} only: it never undoes a pause. */
  public void heartbeat(String name) {
    commands.heartbeat(name, null, Map.of());
  }

  /** A heartbeat that may say what images the worker holds now; without them, the same as above. */
  public void heartbeat(String name, HeartbeatRequest request) {
    Map<String, dev.rota.store.WorkerPull> pulls = new java.util.TreeMap<>();
    if (request.pulls() != null) {
      request
          .pulls()
          .forEach(
              p -> pulls.put(p.image(), new dev.rota.store.WorkerPull(p.state(), p.message())));
    }
    commands.heartbeat(
        name, request.images() == null ? null : HeldImage.parse(request.images()), pulls);
  }

  /** Task states from the worker's agent, counting as a heartbeat. */
  public void reportTasks(String name, TaskReportRequest report) {
    commands.reportTasks(
        name,
        report.tasks().stream()
            .map(
                t ->
                    new ObservedTask(
                        t.id(), t.state(), t.exitCode(), t.message(), t.submission(), t.said()))
            .toList());
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
    return view(commands.setPaused(name, paused));
  }

  /** Drains the worker ({@link WorkerCommands#drain}) until the deadline asked, by default soon. */
  public WorkerView drain(String name, DrainRequest request) {
    return view(commands.drain(name, request.deadlineFrom(clock.instant())));
  }

  public void delete(String name) {
    commands.delete(name);
  }

  private WorkerRow find(String name) {
    return workers.findById(name).orElseThrow(() -> Problems.notFound("worker", name));
  }

  private WorkerView view(WorkerRow row) {
    return views(List.of(row)).get(0);
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
