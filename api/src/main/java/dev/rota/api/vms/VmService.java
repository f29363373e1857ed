package dev.rota.api.vms;

import dev.rota.agentapi.GuestSpec;
import dev.rota.agentapi.WorkerPool;
import dev.rota.api.Durations;
import dev.rota.api.Quantities;
import dev.rota.api.auth.Role;
import dev.rota.api.paging.LabelSelector;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.Problems;
import dev.rota.control.VmCommands;
import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTemplate;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The VMs as the API takes and shows them: requests checked and turned into specs, rows into views;
 * what is done with them is {@link VmCommands}'.
 */
@Singleton
public class VmService {
  static final String PROCESS = "process";
  static final String QEMU = "qemu";
  static final Map<String, Long> DEFAULT_RESOURCES =
      new TreeMap<>(Map.of("cpu", 1L, "memory", 512L));

  private final dev.rota.api.secrets.SecretUse secretUse;
  private final dev.rota.api.namespaces.NamespaceUse namespaceUse;
  private final VmRepository vms;
  private final VmEventRepository events;
  private final VmCommands commands;
  private final Clock clock;
  private final VmEndpoints endpoints;
  private final WorkflowLinks links;
  private final dev.rota.control.PoolClaims claims;
  private final dev.rota.api.templates.VmExpansion expansion;

  public VmService(
      VmRepository vms,
      VmEventRepository events,
      VmCommands commands,
      Clock clock,
      VmEndpoints endpoints,
      WorkflowLinks links,
      dev.rota.api.secrets.SecretUse secretUse,
      dev.rota.api.namespaces.NamespaceUse namespaceUse,
      dev.rota.control.PoolClaims claims,
      dev.rota.api.templates.VmExpansion expansion) {
    this.expansion = expansion;
    this.claims = claims;
    this.secretUse = secretUse;
    this.namespaceUse = namespaceUse;
    this.links = links;
    this.endpoints = endpoints;
    this.vms = vms;
    this.events = events;
    this.commands = commands;
    this.clock = clock;
  }

  /**
   * The namespace of a claim: its pool's. A VM claimed from a pool lives where the pool does, and a
   * claim that names another namespace is refused.
   */
  private String namespaceOfClaim(VmRequest request) {
    String namespace = claims.namespaceOf(request.fromPool());
    if (request.namespace() != null && !request.namespace().equals(namespace)) {
      throw Problems.badRequest(
          "namespace",
          "pool "
              + request.fromPool()
              + " is in namespace "
              + namespace
              + ": the VMs claimed from it live there");
    }
    return namespace;
  }

  /**
   * The user data a claim hands its VM's guest, or null: a secret it names must exist (the claim
   * refuses it for a pool whose VMs are not {@code qemu} guests).
   */
  private dev.rota.control.PoolClaims.UserData claimUserData(VmRequest request, String namespace) {
    if (request.guest() == null || request.guest().userData() == null) {
      return null;
    }
    String secret = request.guest().userDataSecret("");
    secretUse.check(
        new dev.rota.agentapi.SecretRefs(java.util.Map.of(), secret, null), namespace, "");
    if (secret == null && ((String) request.guest().userData()).isEmpty()) {
      return null;
    }
    return new dev.rota.control.PoolClaims.UserData(
        secret == null ? (String) request.guest().userData() : null, secret);
  }

  /**
   * Submits the VM ({@link VmCommands#submit}); with {@code fromPool}, claims a ready replica of
   * that pool as it ({@link dev.rota.control.PoolClaims}).
   */
  public VmView create(VmRequest request) {
    if (request.fromPool() != null) {
      return VmView.of(
          claims.claim(
              request.fromPool(),
              request.name(),
              claimUserData(request, namespaceOfClaim(request))));
    }
    return VmView.of(commands.submit(submitted(request)));
  }

  private VmRow submitted(VmRequest request) {
    return VmRow.submitted(
        request.name(), 0, checked(request, ""), "waiting for the scheduler", clock.instant());
  }

  /**
   * What {@link #create} would do, checked alike, and where the VM would go: for a claim from a
   * pool, the ready replica it would take, where that runs; nothing is written.
   */
  public VmCommands.VmPlan plan(VmRequest request) {
    if (request.fromPool() != null) {
      VmRow replica =
          claims.wouldClaim(
              request.fromPool(),
              request.name(),
              claimUserData(request, namespaceOfClaim(request)));
      return new VmCommands.VmPlan(
          replica,
          new dev.rota.scheduler.term.PlacementPreview.Outcome(
              replica.state().worker(),
              "claims " + replica.name() + ", ready in pool " + request.fromPool(),
              null));
    }
    return commands.plan(submitted(request));
  }

  /**
   * Creates every VM of a batch, or none: all are checked first (a rejection names its item, {@code
   * items[3].command}), then submitted together ({@link VmCommands#submitAll}).
   */
  public List<VmView> createAll(List<VmRequest> requests) {
    List<VmRow> rows = new java.util.ArrayList<>(requests.size());
    Map<String, Integer> byName = new java.util.HashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      VmRequest request = requests.get(i);
      if (request.fromPool() != null) {
        throw Problems.badRequest(
            "items[" + i + "].fromPool", "claims one VM at a time: POST /v1/vms takes it");
      }
      Integer earlier = byName.putIfAbsent(request.name(), i);
      if (earlier != null) {
        // A name taken, if by the same batch: a conflict, as with a VM that exists.
        throw Problems.conflict(
            "items["
                + i
                + "].name: \""
                + request.name()
                + "\" is items["
                + earlier
                + "]'s name too; nothing was created");
      }
      rows.add(
          VmRow.submitted(
              request.name(),
              0,
              checked(request, "items[" + i + "]."),
              "waiting for the scheduler",
              clock.instant()));
    }
    return commands.submitAll(rows).stream().map(VmView::of).toList();
  }

  /** {@link #spec(VmRequest, String)}, its secrets ones the caller may use. */
  private VmTemplate checked(VmRequest request, String field) {
    VmTemplate spec = spec(expansion.expand(request, field), field);
    namespaceUse.check(spec.namespace(), field + "namespace", Role.COMPUTE_WRITE);
    secretUse.check(spec.secrets(), spec.namespace(), field);
    return spec;
  }

  /**
   * What a request asks a VM to run, defaults filled in: a VM's, or (with {@code field}
   * "template.") a set's template, checked alike and named by where the user wrote them.
   */
  public static VmTemplate spec(VmRequest request, String field) {
    return spec(request, field, RestartPolicy.NEVER);
  }

  /** {@link #spec(VmRequest, String)}, with {@code restartPolicy} when the request gives none. */
  public static VmTemplate spec(VmRequest request, String field, RestartPolicy restartPolicy) {
    String runtime = request.runtime() == null ? PROCESS : request.runtime();
    List<String> command = request.command() == null ? List.of() : request.command();
    if (runtime.equals(PROCESS) && command.isEmpty()) {
      throw Problems.badRequest(
          field + "command", "is required for the process runtime, e.g. [\"sleep\", \"3600\"]");
    }
    GuestSpec guest = request.guest() == null ? null : request.guest().spec(field);
    dev.rota.agentapi.NetworkSpec network = null;
    Map<String, String> labels = orEmpty(request.labels());
    if (runtime.equals(QEMU)) {
      GuestChecks.check(field, request.image(), command, guest);
      network =
          request.network() == null
              ? dev.rota.agentapi.NetworkSpec.DEFAULT
              : request.network().spec(field);
      if (!dev.rota.agentapi.GuestIsolation.OPTIONAL.equals(request.isolation())) {
        // Required isolation is a worker label asked for like any other: placement takes only
        // workers that confine guests, and a pending VM's message names the label none has.
        labels = new TreeMap<>(labels);
        labels.put(
            dev.rota.agentapi.GuestIsolation.LABEL, dev.rota.agentapi.GuestIsolation.CONFINED);
      }
    } else {
      if (guest != null) {
        throw Problems.badRequest(
            field + "guest",
            "configures a qemu VM's guest; the " + runtime + " runtime boots none");
      }
      if (request.network() != null) {
        throw Problems.badRequest(
            field + "network",
            "is a qemu guest's network; a "
                + runtime
                + " VM shares its worker's network and cannot be held to one");
      }
      if (request.isolation() != null) {
        throw Problems.badRequest(
            field + "isolation",
            "is whether a qemu guest must run confined; the " + runtime + " runtime runs none");
      }
      if (request.disk() != null) {
        throw Problems.badRequest(
            field + "disk",
            "is a qemu VM's root disk; a " + runtime + " VM runs in its task's folder");
      }
    }
    List<dev.rota.store.VolumeMount> volumes = volumes(request, runtime, field);
    boolean persistent =
        request.disk() != null && request.disk().isPersistent() || !volumes.isEmpty();
    if (request.disk() != null
        && request.disk().isPersistent()
        && (request.image() == null || request.image().isBlank())) {
      throw Problems.badRequest(
          field + "disk.persistent",
          "keeps a qemu VM's root disk, an overlay of its image: give an image");
    }
    if ("suspend".equals(request.onExpiry())) {
      String cannot =
          field.startsWith("template")
              ? "a set keeps its replicas running"
              : dev.rota.core.lifecycle.SuspendRule.refusal(
                  runtime, request.image(), persistent, null);
      if (cannot != null) {
        throw Problems.badRequest(
            field + "onExpiry", "suspend is for a VM that can be suspended: " + cannot);
      }
    }
    if (request.restartWindow() != null && request.maxRestarts() == null) {
      throw Problems.badRequest(
          field + "restartWindow", "is the window maxRestarts counts in: give maxRestarts too");
    }
    Integer maxRun =
        request.maxRunDuration() == null
            ? null
            : Durations.seconds(field + "maxRunDuration", request.maxRunDuration(), false);
    Map<String, String> env = new TreeMap<>();
    Map<String, String> envSecrets = new TreeMap<>();
    orEmpty(request.env())
        .forEach(
            (name, value) -> {
              String secret =
                  SecretRef.nameIn(value, field + "env." + name, VmRequest.MAX_ENV_VALUE);
              if (secret != null) {
                envSecrets.put(name, secret);
              } else {
                env.put(name, (String) value);
              }
            });
    dev.rota.agentapi.SecretRefs secrets =
        new dev.rota.agentapi.SecretRefs(
            envSecrets,
            request.guest() == null ? null : request.guest().userDataSecret(field),
            request.guest() == null ? null : request.guest().startupScriptSecret(field));
    return VmTemplate.builder(runtime)
        .image(request.image())
        .command(command)
        .env(env)
        .resources(resources(request, field))
        .labels(labels)
        .restartPolicy(
            request.restartPolicy() == null ? restartPolicy.wireName() : request.restartPolicy())
        .maxRestarts(request.maxRestarts())
        .restartWindowSeconds(
            request.maxRestarts() == null
                ? null
                : request.restartWindow() == null
                    ? VmRequest.DEFAULT_RESTART_WINDOW_SECONDS
                    : Durations.seconds(field + "restartWindow", request.restartWindow(), false))
        .ttlSecondsAfterFinished(
            request.ttlAfterFinished() == null
                ? null
                : Durations.seconds(field + "ttlAfterFinished", request.ttlAfterFinished(), true))
        .guest(GuestSpec.none(guest) ? null : guest)
        .disconnect(disconnect(request, field, persistent))
        .ports(ports(request.ports(), field))
        .network(network)
        .checks(checks(request, runtime, field))
        .secrets(dev.rota.agentapi.SecretRefs.none(secrets) ? null : secrets)
        .maxRunSeconds(maxRun)
        .onExpiry(request.onExpiry() == null && maxRun != null ? "stop" : request.onExpiry())
        .persistentDisk(persistent)
        .diskSizeGi(request.disk() == null ? null : request.disk().sizeGi())
        .volumes(volumes)
        .migration(migration(request, runtime, persistent, field))
        .priority(request.priority())
        .namespace(request.namespace())
        .constraints(constraints(request, field))
        .tolerations(tolerations(request, field))
        .affinities(affinities(request, field))
        .build();
  }

  /** Its affinities for workers, each checked as the scheduler reads it. */
  private static List<dev.rota.core.model.Affinity> affinities(VmRequest request, String field) {
    return checkedEach(
        request.affinities(),
        field + "affinities",
        AffinityRequest::affinity,
        a -> a.problem().map(p -> Map.entry(p.part(), p.message())));
  }

  /** Its tolerations of workers' taints, each checked as the scheduler reads it. */
  private static List<dev.rota.agentapi.Toleration> tolerations(VmRequest request, String field) {
    return checkedEach(
        request.tolerations(),
        field + "tolerations",
        TolerationRequest::toleration,
        t -> t.problem().map(p -> Map.entry(p.part(), p.message())));
  }

  /**
   * Each of {@code given} (null: none) as the scheduler reads it; the first with a wrong part is a
   * 400 naming that part ({@code tolerations[1].value}).
   */
  private static <R, T> List<T> checkedEach(
      List<R> given,
      String field,
      java.util.function.Function<R, T> read,
      java.util.function.Function<T, java.util.Optional<Map.Entry<String, String>>> problem) {
    List<T> all = new java.util.ArrayList<>();
    for (int i = 0; given != null && i < given.size(); i++) {
      T item = read.apply(given.get(i));
      String at = field + "[" + i + "].";
      problem
          .apply(item)
          .ifPresent(
              p -> {
                throw Problems.badRequest(at + p.getKey(), p.getValue());
              });
      all.add(item);
    }
    return all;
  }

  /**
   * Its constraints on its worker's labels, each checked as the scheduler reads it (a bad regular
   * expression or version comparison, or the wrong number of values, is refused naming the part),
   * and last its worker pool's ({@link WorkerPool}).
   */
  private static List<dev.rota.core.model.LabelConstraint> constraints(
      VmRequest request, String field) {
    List<dev.rota.core.model.LabelConstraint> all = new java.util.ArrayList<>();
    List<ConstraintRequest> given =
        request.constraints() == null ? List.of() : request.constraints();
    for (int i = 0; i < given.size(); i++) {
      ConstraintRequest c = given.get(i);
      dev.rota.core.model.LabelConstraint constraint =
          new dev.rota.core.model.LabelConstraint(c.label(), c.operator(), c.values());
      String at = field + "constraints[" + i + "].";
      if (c.label().equals(WorkerPool.LABEL)) {
        throw Problems.badRequest(
            at + "label", "is the worker pool's label: give workerPool instead");
      }
      if (c.label().startsWith(dev.rota.agentapi.Taint.PREFIX)) {
        throw Problems.badRequest(
            at + "label", "carries a worker's taint: give tolerations instead");
      }
      constraint
          .problem()
          .ifPresent(
              p -> {
                throw Problems.badRequest(at + p.part(), p.message());
              });
      all.add(constraint);
    }
    // Its worker pool is a constraint on the pool label: the default pool's workers carry none.
    String pool = request.workerPool() == null ? WorkerPool.DEFAULT : request.workerPool();
    all.add(
        pool.equals(WorkerPool.DEFAULT)
            ? new dev.rota.core.model.LabelConstraint(WorkerPool.LABEL, "notExists", List.of())
            : new dev.rota.core.model.LabelConstraint(WorkerPool.LABEL, "=", List.of(pool)));
    return all;
  }

  /**
   * How it moves while it runs: live, the default, for a {@code qemu} VM with a persistent disk
   * (its memory and disk go with it); restarted where it goes for any other, which cannot move
   * live.
   */
  private static String migration(
      VmRequest request, String runtime, boolean persistent, String field) {
    boolean canMoveLive = runtime.equals(QEMU) && persistent;
    if (request.migration() == null) {
      return canMoveLive ? VmTemplate.LIVE : VmTemplate.RESTART;
    }
    if (request.migration().equals(VmTemplate.LIVE) && !canMoveLive) {
      throw Problems.badRequest(
          field + "migration",
          "live carries a running qemu VM's memory and its persistent disk to another worker:"
              + (runtime.equals(QEMU)
                  ? " give disk.persistent true"
                  : " a " + runtime + " VM is restarted where it goes"));
    }
    return request.migration();
  }

  /**
   * The data volumes it mounts, each once: a single {@code qemu} VM's, booted from an image, whose
   * root disk then stays with them on their worker (persistent, whatever {@code disk} leaves out).
   */
  private static List<dev.rota.store.VolumeMount> volumes(
      VmRequest request, String runtime, String field) {
    if (request.volumes() == null || request.volumes().isEmpty()) {
      return List.of();
    }
    if (field.startsWith("template")) {
      throw Problems.badRequest(
          field + "volumes", "a volume is mounted by one VM: a set's replicas cannot share one");
    }
    if (!runtime.equals(QEMU)) {
      throw Problems.badRequest(
          field + "volumes",
          "are a qemu VM's disks; a " + runtime + " VM runs in its task's folder");
    }
    if (request.image() == null || request.image().isBlank()) {
      throw Problems.badRequest(
          field + "volumes",
          "are kept beside a qemu VM's persistent root disk, an overlay of its image: give an"
              + " image");
    }
    if (request.disk() != null && Boolean.FALSE.equals(request.disk().persistent())) {
      throw Problems.badRequest(
          field + "disk.persistent",
          "a VM that mounts volumes stays on their worker, its root disk with it: leave it out"
              + " (true with volumes)");
    }
    java.util.Set<String> names = new java.util.HashSet<>();
    List<dev.rota.store.VolumeMount> mounts = new java.util.ArrayList<>();
    for (int i = 0; i < request.volumes().size(); i++) {
      VolumeMountRequest v = request.volumes().get(i);
      if (!names.add(v.name())) {
        throw Problems.badRequest(
            field + "volumes[" + i + "].name", "\"" + v.name() + "\" is mounted twice");
      }
      mounts.add(new dev.rota.store.VolumeMount(v.name(), v.mountPath()));
    }
    return List.copyOf(mounts);
  }

  /**
   * What becomes of it when its worker is cut off: as it says, and for a VM with a persistent disk,
   * kept there by default (its disk does not move, so neither does it).
   */
  private static dev.rota.agentapi.Disconnect disconnect(
      VmRequest request, String field, boolean persistent) {
    dev.rota.agentapi.Disconnect asked =
        request.disconnect() == null ? null : request.disconnect().policy(field);
    if (!persistent) {
      return asked;
    }
    if (request.disconnect() != null
        && request.disconnect().replace() != null
        && request.disconnect().replace()) {
      throw Problems.badRequest(
          field + "disconnect.replace",
          "a VM with a persistent disk stays with its disk on its worker: it is never replaced"
              + " elsewhere");
    }
    return asked != null ? asked : new dev.rota.agentapi.Disconnect(false, null);
  }

  /** Its readiness and liveness checks, on the ports it names; null for none. */
  private static dev.rota.agentapi.Checks checks(VmRequest request, String runtime, String field) {
    if (request.readiness() == null && request.liveness() == null) {
      return null;
    }
    java.util.Set<String> names = new java.util.TreeSet<>();
    if (request.ports() != null) {
      request.ports().forEach(p -> names.add(p.name()));
    }
    return new dev.rota.agentapi.Checks(
        request.readiness() == null
            ? null
            : request.readiness().spec(field + "readiness", runtime, names),
        request.liveness() == null
            ? null
            : request.liveness().spec(field + "liveness", runtime, names));
  }

  /** The named ports, each name and each guest port once. */
  private static List<dev.rota.agentapi.PortSpec> ports(List<PortRequest> ports, String field) {
    if (ports == null) {
      return List.of();
    }
    java.util.Set<String> names = new java.util.HashSet<>();
    java.util.Set<Integer> numbers = new java.util.HashSet<>();
    List<dev.rota.agentapi.PortSpec> specs = new java.util.ArrayList<>();
    for (int i = 0; i < ports.size(); i++) {
      PortRequest p = ports.get(i);
      if (!names.add(p.name())) {
        throw Problems.badRequest(
            field + "ports[" + i + "].name", "\"" + p.name() + "\" names two ports");
      }
      if (!numbers.add(p.port())) {
        throw Problems.badRequest(field + "ports[" + i + "].port", p.port() + " is named twice");
      }
      specs.add(new dev.rota.agentapi.PortSpec(p.name(), p.port()));
    }
    return List.copyOf(specs);
  }

  /**
   * What it reserves: each of cpu and memory as given, or by default (1 CPU, 512 MiB); anything
   * else only as given. A VM runs on at least one CPU and some memory: zero of either would be
   * placed anywhere and limited by nothing.
   */
  private static Map<String, Long> resources(VmRequest request, String field) {
    Map<String, Long> resources = new TreeMap<>(DEFAULT_RESOURCES);
    if (request.resources() != null) {
      resources.putAll(Quantities.parse(field + "resources", request.resources()));
    }
    DEFAULT_RESOURCES.keySet().stream()
        .filter(name -> resources.get(name) == 0)
        .findFirst()
        .ifPresent(
            name -> {
              throw Problems.badRequest(
                  field + "resources." + name,
                  "must be at least 1"
                      + (name.equals("memory") ? " MiB" : "")
                      + ": a VM cannot run on none (leave it out for the default of "
                      + DEFAULT_RESOURCES.get(name)
                      + (name.equals("memory") ? " MiB" : "")
                      + ")");
            });
    return resources;
  }

  public Page<VmView> list(
      @Nullable String status,
      @Nullable String worker,
      @Nullable String set,
      @Nullable String namespace,
      LabelSelector selector,
      PageRequest page) {
    if (status != null && WireName.parse(VmStatus.class, status).isEmpty()) {
      throw Problems.badRequest(
          "status",
          "must be one of " + WireName.allowed(VmStatus.class) + ", got \"" + status + "\"");
    }
    // A namespace alone is read by its index; beside a set or a worker, it filters their pages.
    boolean byNamespace = namespace != null && set == null && worker == null;
    java.util.function.BiFunction<Long, Integer, List<VmRow>> fetch =
        (after, n) ->
            byNamespace
                ? vms.pageOfNamespace(namespace, after, status, n)
                : vms.page(after, status, worker, set, n);
    List<VmRow> rows =
        selector.pairs().isEmpty() && (namespace == null || byNamespace)
            ? fetch.apply(page.afterNumber(), page.fetchSize())
            : page.kept(
                (last, n) -> fetch.apply(last == null ? page.afterNumber() : last.seq(), n),
                r ->
                    selector.matches(r.spec().labels())
                        && (namespace == null || namespace.equals(r.spec().namespace())));
    return page.page(rows, r -> Long.toString(r.seq()), this::shown);
  }

  public VmView get(String name) {
    return shown(find(name));
  }

  /** A VM as shown, with where its ports are reached. */
  private VmView shown(VmRow row) {
    return VmView.of(row, endpoints.of(row), links.vm(row.name()));
  }

  /** Every VM as shown, oldest first: a watch's snapshot. */
  public List<VmView> all() {
    List<VmRow> rows = new java.util.ArrayList<>();
    vms.findAll().forEach(rows::add);
    rows.sort(java.util.Comparator.comparingLong(VmRow::seq));
    return rows.stream().map(this::shown).toList();
  }

  /** The VM as shown, if it exists. */
  public java.util.Optional<VmView> view(String name) {
    return vms.findById(name).map(this::shown);
  }

  public Page<VmEventView> events(String name, PageRequest page) {
    find(name);
    return page.page(
        events.page(name, page.afterNumber(), page.fetchSize()),
        e -> Long.toString(e.id()),
        VmEventView::of);
  }

  public VmView stop(String name) {
    commands.stop(name);
    return get(name);
  }

  public VmView start(String name) {
    commands.start(name);
    return get(name);
  }

  public VmView restart(String name) {
    commands.restart(name);
    return get(name);
  }

  /** Suspends the VM: to its worker's disk, or {@code inPlace}, paused where it runs. */
  public VmView suspend(String name, boolean inPlace) {
    if (inPlace) {
      commands.pause(name);
    } else {
      commands.suspend(name);
    }
    return get(name);
  }

  /** Moves the end of the VM's lease later, as its workflow judges it (a 409 without one). */
  public VmView extendLease(String name, LeaseRequest request) {
    commands.extendLease(name, Durations.seconds("extendBy", request.extendBy(), false));
    return get(name);
  }

  public VmView delete(String name) {
    return VmView.of(commands.delete(name));
  }

  private VmRow find(String name) {
    return vms.findById(name).orElseThrow(() -> Problems.notFound("VM", name));
  }

  private static <V> Map<String, V> orEmpty(@Nullable Map<String, V> map) {
    return map == null ? Map.of() : new TreeMap<>(map);
  }
}
