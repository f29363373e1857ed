package dev.rota.api.vmsets;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.Role;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.Problems;
import dev.rota.api.vms.VmRequest;
import dev.rota.api.vms.VmService;
import dev.rota.control.VmSetCommands;
import dev.rota.control.VmSetCommands.SetSpec;
import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.Spread;
import dev.rota.store.Count;
import dev.rota.store.SetUpdate;
import dev.rota.store.VmRepository;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmTemplate;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * VM sets as the API takes and shows them: requests checked and turned into specs ({@link
 * VmSetCommands} does what they ask), rows into views, whose status is read from the replicas'
 * rows.
 */
@Singleton
public class VmSetService {
  private static final String SPREAD_MESSAGE =
      "must be \"none\", \"distinct-workers\" or {\"label\": \"<worker label key>\"} (with"
          + " \"targets\": {\"<value>\": <percent>} to share it unevenly)";

  private final VmSetRepository sets;
  private final VmRepository vms;
  private final dev.rota.store.VmSetVersionRepository versions;
  private final VmSetCommands commands;
  private final JsonBodies bodies;
  private final dev.rota.api.secrets.SecretUse secretUse;
  private final dev.rota.api.namespaces.NamespaceUse namespaceUse;
  private final dev.rota.control.SetPlans setPlans;
  private final dev.rota.api.plans.Plans plans;
  private final dev.rota.api.templates.VmExpansion expansion;

  public VmSetService(
      VmSetRepository sets,
      VmRepository vms,
      VmSetCommands commands,
      JsonBodies bodies,
      dev.rota.api.secrets.SecretUse secretUse,
      dev.rota.api.namespaces.NamespaceUse namespaceUse,
      dev.rota.store.VmSetVersionRepository versions,
      dev.rota.control.SetPlans setPlans,
      dev.rota.api.plans.Plans plans,
      dev.rota.api.templates.VmExpansion expansion) {
    this.expansion = expansion;
    this.setPlans = setPlans;
    this.plans = plans;
    this.secretUse = secretUse;
    this.namespaceUse = namespaceUse;
    this.versions = versions;
    this.sets = sets;
    this.vms = vms;
    this.commands = commands;
    this.bodies = bodies;
  }

  /**
   * A set as asked for, checked: the replicas' template as a VM without its name, the spread
   * parsed.
   */
  private SetSpec spec(VmSetRequest request) {
    int maxUnavailable = request.maxUnavailable() == null ? 1 : request.maxUnavailable();
    VmSetRequest.Update update = request.update();
    int maxSurge = update == null || update.maxSurge() == null ? 0 : update.maxSurge();
    if (maxSurge == 0 && maxUnavailable == 0) {
      throw Problems.badRequest(
          "update.maxSurge",
          "must be at least 1 when maxUnavailable is 0: otherwise no replica could ever be replaced");
    }
    int minHealthy =
        update == null || update.minHealthyTime() == null
            ? 0
            : dev.rota.api.Durations.seconds(
                "update.minHealthyTime", update.minHealthyTime(), true);
    if (minHealthy > MAX_MIN_HEALTHY_SECONDS) {
      throw Problems.badRequest(
          "update.minHealthyTime", "must be at most 1h, got " + update.minHealthyTime());
    }
    int deadline =
        update == null || update.progressDeadline() == null
            ? SetUpdate.PROGRESS_DEADLINE_SECONDS
            : dev.rota.api.Durations.seconds(
                "update.progressDeadline", update.progressDeadline(), false);
    if (deadline <= minHealthy || deadline > MAX_PROGRESS_DEADLINE_SECONDS) {
      throw Problems.badRequest(
          "update.progressDeadline",
          "must be longer than minHealthyTime and at most 1d, got "
              + dev.rota.api.Durations.of(deadline));
    }
    return new SetSpec(
        request.replicas(),
        replicaTemplate(request),
        spread(request.spread()).wireName(),
        maxUnavailable,
        new SetUpdate(
            maxSurge,
            minHealthy,
            deadline,
            update != null && Boolean.TRUE.equals(update.autoRevert()),
            update == null || update.canary() == null ? 0 : update.canary(),
            update != null && Boolean.TRUE.equals(update.autoPromote())));
  }

  private static final int MAX_PROGRESS_DEADLINE_SECONDS = 86_400;

  /** A new replica proves itself healthy within an hour, or the rollout is not worth waiting on. */
  private static final int MAX_MIN_HEALTHY_SECONDS = 3_600;

  /**
   * The set's template as given, or made of a VM template ({@code fromTemplate}, {@code
   * parameters}): that template's spec as it is now, with the values, which the set keeps. A later
   * change of the VM template reaches the set when the set is given it again.
   */
  private VmTemplate replicaTemplate(VmSetRequest request) {
    if (request.fromTemplate() == null) {
      if (request.parameters() != null && !request.parameters().isEmpty()) {
        throw Problems.badRequest(
            "parameters", "are a VM template's: give fromTemplate, the template they are for");
      }
      if (request.template() == null) {
        throw Problems.badRequest(
            "template", "is required: the replicas' spec, or fromTemplate to make it of one");
      }
      return template(request.name(), request.namespace(), request.template());
    }
    if (request.template() != null) {
      throw Problems.badRequest(
          "fromTemplate", "give template or fromTemplate, not both: the VM template is the spec");
    }
    Map<String, Object> given = new HashMap<>();
    given.put("fromTemplate", request.fromTemplate());
    if (request.parameters() != null) {
      given.put("parameters", request.parameters());
    }
    return template(request.name(), request.namespace(), given, "");
  }

  /** A set's (or pool's) template, checked as a VM its replicas' names would have. */
  VmTemplate template(String setName, @Nullable String namespace, Map<String, Object> given) {
    return template(setName, namespace, given, "template.");
  }

  /** The same, its rejections naming their fields under {@code field}. */
  private VmTemplate template(
      String setName, @Nullable String namespace, Map<String, Object> given, String field) {
    // As shown, a set's template names the set's namespace: sent back, it is the set's.
    Object named = given.get("namespace");
    if (namespace != null && named != null && !namespace.equals(named)) {
      throw Problems.badRequest(
          field + "namespace",
          "is the set's: its replicas live in the namespace given beside the template ("
              + namespace
              + ")");
    }
    Map<String, Object> template = new HashMap<>(given);
    if (namespace != null) {
      // Left out, it is the VM template's (fromTemplate), or default.
      template.put("namespace", namespace);
    }
    // Checked as a VM; every replica's name will be of this shape.
    template.put("name", VmSetRow.replicaName(setName, 0));
    VmRequest vm =
        bodies.readPart(field.isEmpty() ? "body" : "template", template, VmRequest.class);
    if (vm.fromPool() != null) {
      throw Problems.badRequest(field + "fromPool", "is for claiming one VM, not a template");
    }
    if (!field.isEmpty() && (vm.fromTemplate() != null || vm.parameters() != null)) {
      throw Problems.badRequest(
          vm.fromTemplate() != null ? "template.fromTemplate" : "template.parameters",
          "is not part of a spec: a set takes fromTemplate and parameters in place of its"
              + " template, and a pool's template is a spec of its own");
    }
    vm = expansion.expand(vm, field);
    // A replica restarts unless the template says otherwise, so that the set heals (a
    // ReplicaSet's pods do alike).
    VmTemplate replica = VmService.spec(vm, field, RestartPolicy.ALWAYS);
    namespaceUse.check(replica.namespace(), "namespace", Role.COMPUTE_WRITE);
    secretUse.check(replica.secrets(), replica.namespace(), field);
    return replica;
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
        && m.get("label") instanceof String key
        && key.matches(dev.rota.api.Limits.LABEL_KEY)
        && (m.size() == 1 || m.size() == 2 && m.containsKey("targets"))) {
      Spread.ByLabel spread = new Spread.ByLabel(key, targets(m.get("targets")));
      String problem = spread.problem();
      if (problem != null) {
        throw Problems.badRequest("spread.targets", problem);
      }
      return spread;
    }
    throw Problems.badRequest("spread", SPREAD_MESSAGE);
  }

  /** A label spread's targets: percent by value of the label; none for an even spread. */
  private static Map<String, Integer> targets(@Nullable Object given) {
    if (given == null) {
      return Map.of();
    }
    Map<String, Integer> targets = new java.util.TreeMap<>();
    if (given instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!(e.getKey() instanceof String value)
            || !value.matches(dev.rota.api.Limits.LABEL_VALUE)) {
          throw Problems.badRequest(
              "spread.targets", "are percentages by a value of the label: " + e.getKey());
        }
        if (!(e.getValue() instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
          throw Problems.badRequest(
              "spread.targets." + value, "must be a whole percent from 1 to 100");
        }
        targets.put(
            value, (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n.longValue())));
      }
      return targets;
    }
    throw Problems.badRequest("spread.targets", "must be an object of percentages by value");
  }

  /** The spread as the user wrote it. */
  static Object shown(String wire) {
    Spread spread = Spread.parse(wire).orElse(Spread.NONE);
    if (spread instanceof Spread.ByLabel byLabel) {
      return byLabel.targets().isEmpty()
          ? Map.of("label", byLabel.key())
          : Map.of("label", byLabel.key(), "targets", byLabel.targets());
    }
    return spread.wireName();
  }

  /** What {@link #create} would do; nothing is written. */
  public dev.rota.api.plans.PlanView planCreate(VmSetRequest request) {
    dev.rota.control.SetPlans.SetPlan plan = setPlans.create(request.name(), spec(request));
    return plans.set(plan, null, view(plan.set()));
  }

  /** What {@link #replace} would do; nothing is written. */
  public dev.rota.api.plans.PlanView planReplace(String name, VmSetRequest request) {
    sameName(name, request);
    VmSetView was = view(find(name));
    dev.rota.control.SetPlans.SetPlan plan = setPlans.replace(name, spec(request));
    return plans.set(plan, was, view(plan.set()));
  }

  public VmSetView create(VmSetRequest request, String by) {
    return view(commands.create(request.name(), spec(request), by));
  }

  public Page<VmSetView> list(PageRequest page, @Nullable String namespace) {
    return page.page(pageOf(sets, false, page, namespace), s -> Long.toString(s.seq()), this::view);
  }

  /** A page of sets (or of pools), of one namespace when {@code namespace} is given. */
  static List<VmSetRow> pageOf(
      VmSetRepository sets, boolean pools, PageRequest page, @Nullable String namespace) {
    return namespace == null
        ? sets.pageOf(pools, page.afterNumber(), page.fetchSize())
        : page.kept(
            (last, n) -> sets.pageOf(pools, last == null ? page.afterNumber() : last.seq(), n),
            s -> namespace.equals(s.template().namespace()));
  }

  public VmSetView get(String name) {
    return view(find(name));
  }

  /**
   * Replaces what the set asks for; a template that differs is the set's next version, rolled out
   * over its replicas.
   */
  public VmSetView replace(String name, VmSetRequest request, String by) {
    sameName(name, request);
    find(name);
    return view(commands.replace(name, spec(request), by));
  }

  private static void sameName(String name, VmSetRequest request) {
    if (!name.equals(request.name())) {
      throw Problems.badRequest(
          "name", "must be the set's own name, \"" + name + "\", got \"" + request.name() + "\"");
    }
  }

  /**
   * {@code {"version": n}}: gives the set the template of its version {@code n} again, as its next
   * version, rolled out as any new template is.
   */
  public VmSetView revert(String name, Map<String, Object> body, String by) {
    for (String field : new TreeSet<>(body.keySet())) {
      if (!field.equals("version")) {
        throw Problems.badRequest(field, "is not a field of a revert; only version is");
      }
    }
    Object given = body.get("version");
    if (!(given instanceof Integer version) || version < 1) {
      throw Problems.badRequest("version", "is required, a version number from 1, got " + given);
    }
    VmSetRow set = find(name);
    if (versions.find(name, version).isEmpty()) {
      throw Problems.badRequest(
          "version",
          "VM set "
              + name
              + " has no version "
              + version
              + "; it has 1 to "
              + set.templateVersion()
              + " (GET /v1/vm-sets/"
              + name
              + "/versions)");
    }
    return view(commands.revert(name, version, by));
  }

  /**
   * Where the set's rollouts are: {@code paused} (this one, or the next to come), {@code complete}
   * (every replica was made of its template once), {@code canary} (until its canaries are promoted)
   * or {@code rolling}.
   */
  static String rolloutState(VmSetRow row) {
    if (row.rollout().paused()) {
      return "paused";
    }
    if (row.templateVersion() == row.rollout().stableVersion()) {
      return "complete";
    }
    return row.update().canary() > 0 && !row.rollout().promoted() ? "canary" : "rolling";
  }

  public VmSetView promote(String name) {
    find(name);
    return view(commands.promote(name));
  }

  public VmSetView pauseRollouts(String name, boolean paused) {
    find(name);
    return view(commands.pauseRollouts(name, paused));
  }

  /** The templates the set has had, the newest first: at most {@link #VERSIONS_SHOWN}. */
  public VmSetVersionsView versions(String name) {
    VmSetRow set = find(name);
    return new VmSetVersionsView(
        versions.newestOf(name, VERSIONS_SHOWN).stream()
            .map(
                v ->
                    new VmSetVersionsView.Version(
                        v.version(),
                        v.version() == set.templateVersion(),
                        dev.rota.api.vms.VmSpecView.of(v.template()),
                        v.createdAt(),
                        v.createdBy()))
            .toList());
  }

  static final int VERSIONS_SHOWN = 100;

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
    find(name);
    commands.resize(name, replicas);
    return get(name);
  }

  /** Marks the set for deletion ({@link VmSetCommands#delete}): the row as marked. */
  public VmSetView delete(String name) {
    find(name);
    return view(commands.delete(name));
  }

  private VmSetRow find(String name) {
    return sets.findById(name)
        .filter(s -> !s.isPool())
        .orElseThrow(() -> Problems.notFound("VM set", name));
  }

  /**
   * How a set's (or pool's) replicas stand: how many in each status, how many run, how many are
   * ready, and how many there are.
   */
  record ReplicaCounts(Map<String, Long> byStatus, long running, long ready, long total) {}

  ReplicaCounts counts(VmSetRow row) {
    Map<String, Long> byStatus = new HashMap<>();
    for (Count c : vms.countReplicasByStatus(row.name())) {
      byStatus.put(c.label(), c.total());
    }
    long running = byStatus.getOrDefault("running", 0L);
    // A replica counts as available once ready: running, and its readiness check passing.
    boolean checked =
        row.template().checks() != null && row.template().checks().readiness() != null;
    long ready = checked ? vms.countReadyReplicas(row.name()) : running;
    long total = byStatus.values().stream().mapToLong(Long::longValue).sum();
    return new ReplicaCounts(byStatus, running, ready, total);
  }

  private VmSetView view(VmSetRow row) {
    ReplicaCounts counts = counts(row);
    Map<String, Long> byStatus = counts.byStatus();
    long running = counts.running();
    long ready = counts.ready();
    long pending = byStatus.getOrDefault("pending", 0L);
    long total = counts.total();
    int desired = row.deleting() ? 0 : row.replicas();
    long updated = vms.countReplicasOfVersion(row.name(), row.templateVersion());
    return new VmSetView(
        row.name(),
        row.replicas(),
        dev.rota.api.vms.VmSpecView.of(row.template()),
        shown(row.spread()),
        row.maxUnavailable(),
        new VmSetView.Update(
            row.update().maxSurge(),
            dev.rota.api.Durations.of(row.update().minHealthySeconds()),
            dev.rota.api.Durations.of(row.update().progressDeadlineSeconds()),
            row.update().autoRevert(),
            row.update().canary(),
            row.update().autoPromote()),
        row.templateVersion(),
        new VmSetView.Status(
            desired,
            running,
            ready,
            pending,
            updated,
            row.rollout().stableVersion(),
            rolloutState(row),
            message(row, desired, running, pending, total, updated, byStatus)),
        row.createdAt());
  }

  /**
   * How many run against how many are wanted: {@code 2 of 3 running}, or, while the set shrinks,
   * {@code 8 running, scaling down to 3; 5 being removed}.
   */
  static String counts(long running, int desired, long total) {
    return total > desired
        ? running
            + " running, scaling down to "
            + desired
            + "; "
            + (total - desired)
            + " being removed"
        : running + " of " + desired + " running";
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
      long updated,
      Map<String, Long> byStatus) {
    if (row.deleting()) {
      return "being deleted; " + total + " replicas left";
    }
    if (row.message() != null) {
      return row.message();
    }
    boolean rolling = updated < total;
    if (running == desired && total == desired && !rolling) {
      return null;
    }
    StringBuilder m = new StringBuilder();
    if (rolling) {
      m.append("rolling out version ")
          .append(row.templateVersion())
          .append(": ")
          .append(updated)
          .append(" of ")
          .append(desired)
          .append(" replicas updated; ");
    }
    m.append(counts(running, desired, total));
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
