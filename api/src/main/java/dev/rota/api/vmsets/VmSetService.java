package dev.rota.api.vmsets;

import dev.rota.api.Conflicts;
import dev.rota.api.JsonBodies;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.Problems;
import dev.rota.api.vms.VmRequest;
import dev.rota.api.vms.VmService;
import dev.rota.control.ControlWorkflows;
import dev.rota.control.Refused;
import dev.rota.model.Spread;
import dev.rota.store.Count;
import dev.rota.store.Sql;
import dev.rota.store.VmRepository;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmTemplate;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * VM sets: the row is stored first, then the set's workflow is started or told; the workflow makes
 * the replicas. What a set's status says is read from its replicas' rows.
 */
@Singleton
public class VmSetService {
  private static final String SPREAD_MESSAGE =
      "must be \"none\", \"distinct-workers\" or {\"label\": \"<worker label key>\"}";

  private final VmSetRepository sets;
  private final VmRepository vms;
  private final ControlWorkflows control;
  private final JsonBodies bodies;
  private final Clock clock;

  public VmSetService(
      VmSetRepository sets,
      VmRepository vms,
      ControlWorkflows control,
      JsonBodies bodies,
      Clock clock) {
    this.sets = sets;
    this.vms = vms;
    this.control = control;
    this.bodies = bodies;
    this.clock = clock;
  }

  /**
   * A set as asked for, checked: the replicas' template as a VM without its name, the spread
   * parsed.
   */
  private record Spec(int replicas, VmTemplate template, Spread spread, int maxUnavailable) {}

  private Spec spec(VmSetRequest request) {
    Map<String, Object> template = new HashMap<>(request.template());
    // Checked as a VM; every replica's name will be of this shape.
    template.put("name", VmSetRow.replicaName(request.name(), 0));
    VmRequest vm = bodies.readPart("template", template, VmRequest.class);
    return new Spec(
        request.replicas(),
        VmService.spec(vm, "template."),
        spread(request.spread()),
        request.maxUnavailable() == null ? 1 : request.maxUnavailable());
  }

  static Spread spread(@Nullable Object given) {
    if (given == null) {
      return Spread.NONE;
    }
    if (given instanceof String s && !s.startsWith("label:")) {
      return Spread.parse(s)
          .orElseThrow(() -> Problems.badRequest("spread", SPREAD_MESSAGE + ", got \"" + s + "\""));
    }
    if (given instanceof Map<?, ?> m
        && m.size() == 1
        && m.get("label") instanceof String key
        && key.matches(dev.rota.api.Limits.LABEL_KEY)) {
      return new Spread.ByLabel(key);
    }
    throw Problems.badRequest("spread", SPREAD_MESSAGE);
  }

  /** The spread as the user wrote it. */
  static Object shown(String wire) {
    Spread spread = Spread.parse(wire).orElse(Spread.NONE);
    return spread instanceof Spread.ByLabel byLabel
        ? Map.of("label", byLabel.key())
        : spread.wireName();
  }

  public VmSetView create(VmSetRequest request) {
    Spec spec = spec(request);
    VmSetRow saved;
    try {
      saved =
          sets.save(
              VmSetRow.created(
                  request.name(),
                  sets.nextSeq(),
                  spec.replicas(),
                  spec.template(),
                  spec.spread().wireName(),
                  spec.maxUnavailable(),
                  clock.instant()));
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw Problems.conflict("VM set '" + request.name() + "' already exists");
      }
      throw e;
    }
    try {
      control.startSet(saved.name(), saved.replicas());
    } catch (RuntimeException e) {
      // Without its workflow the set would never get replicas: take the row back and let the user
      // retry.
      sets.deleteById(saved.name());
      if (e instanceof Refused) {
        throw e;
      }
      throw Problems.unavailable(
          "cannot reach Temporal to start VM set '" + saved.name() + "'; nothing was stored");
    }
    return view(saved);
  }

  public Page<VmSetView> list(PageRequest page) {
    return page.page(
        sets.page(page.afterNumber(), page.fetchSize()), s -> Long.toString(s.seq()), this::view);
  }

  public VmSetView get(String name) {
    return view(find(name));
  }

  /**
   * Replaces what the set asks for; replicas already made keep the template they were made from.
   */
  public VmSetView replace(String name, VmSetRequest request) {
    if (!name.equals(request.name())) {
      throw Problems.badRequest(
          "name", "must be the set's own name, \"" + name + "\", got \"" + request.name() + "\"");
    }
    Spec spec = spec(request);
    VmSetRow updated =
        Conflicts.retry(
            () -> {
              VmSetRow row = notDeleting(find(name));
              return sets.update(
                  row.respecified(
                      spec.replicas(),
                      spec.template(),
                      spec.spread().wireName(),
                      spec.maxUnavailable()));
            });
    control.tellSet(name, updated.replicas());
    return view(updated);
  }

  /** {@code {"replicas": n}}: scales the set; nothing else may change this way. */
  public VmSetView patch(String name, Map<String, Object> body) {
    if (body.isEmpty()) {
      throw Problems.badRequest(
          "replicas", "is required, a whole number from 0 to " + VmSetRequest.MAX_REPLICAS);
    }
    for (String field : new TreeSet<>(body.keySet())) {
      if (!field.equals("replicas")) {
        throw Problems.badRequest(
            field, "cannot be changed with PATCH; only replicas can (PUT replaces the whole set)");
      }
    }
    Object given = body.get("replicas");
    if (!(given instanceof Integer replicas)
        || replicas < 0
        || replicas > VmSetRequest.MAX_REPLICAS) {
      throw Problems.badRequest(
          "replicas",
          "must be a whole number from 0 to " + VmSetRequest.MAX_REPLICAS + ", got " + given);
    }
    if (sets.resize(name, replicas) == 0) {
      notDeleting(find(name));
    }
    control.tellSet(name, replicas);
    return get(name);
  }

  /**
   * Marks the set for deletion; its workflow deletes the replicas, then the set. The answer is the
   * row as this request marked it, not read again: once told, the workflow may remove a set with no
   * replicas left before a second read, which would then answer 404 to a deletion that was
   * accepted.
   */
  public VmSetView delete(String name) {
    VmSetRow row = find(name);
    if (sets.markDeleting(name) == 0) {
      // Removed since it was read: its workflow finished an earlier deletion.
      throw Problems.notFound("VM set", name);
    }
    control.tellSet(name, row.replicas());
    return view(row.markedDeleting());
  }

  private VmSetRow find(String name) {
    return sets.findById(name).orElseThrow(() -> Problems.notFound("VM set", name));
  }

  private static VmSetRow notDeleting(VmSetRow row) {
    if (row.deleting()) {
      throw Problems.conflict("VM set '" + row.name() + "' is being deleted");
    }
    return row;
  }

  private VmSetView view(VmSetRow row) {
    Map<String, Long> byStatus = new HashMap<>();
    for (Count c : vms.countReplicasByStatus(row.name())) {
      byStatus.put(c.label(), c.total());
    }
    long running = byStatus.getOrDefault("running", 0L);
    long pending = byStatus.getOrDefault("pending", 0L);
    long total = byStatus.values().stream().mapToLong(Long::longValue).sum();
    int desired = row.deleting() ? 0 : row.replicas();
    return new VmSetView(
        row.name(),
        row.replicas(),
        row.template(),
        shown(row.spread()),
        row.maxUnavailable(),
        new VmSetView.Status(
            desired, running, pending, message(row, desired, running, pending, total, byStatus)),
        row.createdAt());
  }

  /**
   * Why the set is not {@code desired} running replicas, first what the user can act on; null when
   * it is.
   */
  private String message(
      VmSetRow row,
      int desired,
      long running,
      long pending,
      long total,
      Map<String, Long> byStatus) {
    if (row.deleting()) {
      return "being deleted; " + total + " replicas left";
    }
    if (row.message() != null) {
      return row.message();
    }
    if (running == desired && total == desired) {
      return null;
    }
    StringBuilder m = new StringBuilder(running + " of " + desired + " running");
    if (total > desired) {
      m.append("; ").append(total - desired).append(" being removed");
    }
    if (pending > 0) {
      m.append("; ").append(pending).append(" pending");
      vms.firstPendingReplica(row.name())
          .ifPresent(
              first ->
                  m.append(", ")
                      .append(first.name())
                      .append(": ")
                      .append(
                          first.notes().pendingReason() != null
                              ? first.notes().pendingReason()
                              : first.state().statusMessage()));
    }
    for (String status : List.of("scheduled", "failed", "stopped", "stopping")) {
      long n = byStatus.getOrDefault(status, 0L);
      if (n > 0) {
        m.append("; ").append(n).append(' ').append(status);
      }
    }
    if (total < desired) {
      m.append("; ").append(desired - total).append(" not yet submitted");
    }
    return m.toString();
  }
}
