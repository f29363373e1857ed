package dev.rota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.Agent;
import dev.rota.host.HostMode;
import dev.rota.host.RotaHost;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * End-to-end load: a dev stack with N synthetic agents in this JVM, V VMs submitted through the
 * REST API from several client threads, then an idle minute, then 10% of the agents killed.
 * Temporal cost is counted from the workflow histories (events by type, within each phase's time
 * window).
 *
 * <pre>java -cp bench/target/rota-bench.jar dev.rota.bench.LoadHarness 10x100 100x1000 [500x5000]
 * </pre>
 *
 * A size {@code 100x1000x5} gives one host five bursts of 1,000 VMs, each deleted before the next:
 * the later bursts find the host as one that has run a while does, its code compiled by the JIT.
 */
public final class LoadHarness {
  private static final int CLIENT_THREADS = 8;

  /**
   * VMs per request: 1 submits each with POST /v1/vms; more, with POST /v1/vms/batch ({@code
   * -Dbench.batch=100}).
   */
  private static final int BATCH = Integer.getInteger("bench.batch", 1);

  /**
   * A burst as one VM set of that many replicas, one request ({@code -Dbench.set=true}): its
   * replicas are named as the VMs of other bursts are ({@code load-0}, …).
   */
  private static final boolean SET = Boolean.getBoolean("bench.set");

  /** The activity types that each begin one term, old and new. */
  private static final Set<String> TERM_ACTIVITIES = Set.of("Observe", "Term", "TermAndApply");

  private static final Duration IDLE = Duration.ofSeconds(60);

  /** Shortened so that the failure phase fits a run; reported with the figures. */
  static final Map<String, Object> SETTINGS =
      Map.of(
          "rota.workers.lost-after", "5s",
          "rota.workers.offline-after", "5s",
          "rota.vms.restart-delay", "1s",
          "rota.agent.heartbeat-interval", "2s",
          "rota.dev.agent-resources", "cpu=64,memory=262144",
          // A synthetic task starts at once: submit-to-running is Rota's own time, not a VM's boot.
          "rota.dev.agent-synthetic-start-delay", "0ms");

  /**
   * The harness's settings, with any {@code -Drota.…=…} given on the command line in their place.
   */
  static Map<String, Object> settings() {
    Map<String, Object> s = new java.util.TreeMap<>(SETTINGS);
    // The embedded server unless -Drota.temporal.dev-server=cli asks for the real one.
    s.put("rota.temporal.dev-server", "embedded");
    System.getProperties().stringPropertyNames().stream()
        .filter(k -> k.startsWith("rota."))
        .forEach(k -> s.put(k, System.getProperty(k)));
    return s;
  }

  private final HarnessApi calls = new HarnessApi(null);

  public static void main(String[] args) throws Exception {
    try {
      measure(args);
    } catch (Exception | Error e) {
      // A host that could not start leaves threads behind that would keep this JVM waiting for
      // good.
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void measure(String[] args) throws Exception {
    List<String> sizes = args.length == 0 ? List.of("10x100", "100x1000") : List.of(args);
    List<Map<String, Object>> results = new ArrayList<>();
    for (String size : sizes) {
      // WORKERSxVMS, or WORKERSxVMSxBURSTS: that many bursts one after another in one host
      String[] p = size.split("x");
      results.addAll(
          new LoadHarness()
              .run(
                  Integer.parseInt(p[0]),
                  Integer.parseInt(p[1]),
                  p.length > 2 ? Integer.parseInt(p[2]) : 1));
    }
    Path out = Path.of("bench/target/load-" + Instant.now().toString().replace(':', '-') + ".json");
    Files.createDirectories(out.getParent());
    Files.writeString(
        out,
        new ObjectMapper()
            .writerWithDefaultPrettyPrinter()
            .writeValueAsString(
                Map.of("machine", machine(), "settings", settings(), "runs", results)));
    printTable(results);
    System.out.println("JSON: " + out.toAbsolutePath());
    System.exit(0);
  }

  /**
   * One host with {@code workers} agents, given {@code bursts} bursts of {@code vms} VMs one after
   * another (each deleted before the next, as a host that has run a while sees them), then an idle
   * minute and a failover after the last. One result per burst; the last has the idle and failover
   * figures.
   */
  List<Map<String, Object>> run(int workers, int vms, int bursts) throws Exception {
    Path data = Files.createTempDirectory("rota-load");
    int port = freePort();
    Map<String, Object> props = new java.util.HashMap<>(settings());
    props.put("micronaut.server.port", port);
    props.put("rota.temporal.port", freePort());
    props.put("rota.data-dir", data.toString());
    props.put("rota.dev.agents", workers);
    List<Map<String, Object>> results = new ArrayList<>();
    System.out.printf(
        "== %d workers x %d VMs%s, API on http://127.0.0.1:%d%n",
        workers, vms, bursts == 1 ? "" : " x " + bursts + " bursts", port);
    try (RotaHost host = RotaHost.start(HostMode.DEV, props)) {
      String api = "http://127.0.0.1:" + port;
      WorkflowClient temporal = host.context().getBean(WorkflowClient.class);
      HarnessApi.await(
          "all agents ready",
          () -> calls.count(api, "workers", "ready") == workers,
          Duration.ofMinutes(3));
      Set<String> clusterRuns = new HashSet<>();
      clusterRuns.add(clusterRun(temporal));
      Map<String, Object> r = null;
      for (int burst = 1; burst <= bursts; burst++) {
        if (burst > 1) {
          deleteAll(api, vms);
        }
        r = new LinkedHashMap<>();
        r.put("workers", workers);
        r.put("vms", vms);
        r.put("burst", burst);
        burst(
            r,
            api,
            temporal,
            host.context().getBean(dev.rota.store.WorkflowStartRepository.class),
            clusterRuns,
            vms);
        results.add(r);
      }
      idleThenFailover(r, api, host, temporal, clusterRuns, workers, vms);
    } finally {
      deleteRecursively(data);
    }
    return results;
  }

  /** Submits {@code vms} VMs and waits for all to run: what it took goes into {@code r}. */
  private void burst(
      Map<String, Object> r,
      String api,
      WorkflowClient temporal,
      dev.rota.store.WorkflowStartRepository starts,
      Set<String> clusterRuns,
      int vms)
      throws Exception {
    // Submit and run: one VM per request, or BATCH per request to POST /v1/vms/batch.
    Instant start = Instant.now();
    long cpuAtStart = processCpuNanos();
    long serverTicksAtStart = serverCpuTicks();
    ThreadCpu threadCpu = ThreadCpu.now();
    HeapPeak heap = HeapPeak.fromNow();
    calls.submit(vms, SET ? 0 : BATCH, n -> api, CLIENT_THREADS);
    Instant submitted = Instant.now();
    long[] lastSaid = {System.nanoTime()};
    HarnessApi.await(
        "all running",
        () -> {
          long running = calls.count(api, "vms", "running");
          if (System.nanoTime() - lastSaid[0] > 10_000_000_000L) {
            lastSaid[0] = System.nanoTime();
            System.out.printf(
                "  %d of %d running at %.1f s%n",
                running, vms, Duration.between(start, Instant.now()).toMillis() / 1000.0);
          }
          return running == vms;
        },
        Duration.ofMinutes(10),
        HarnessApi.ALL_RUNNING_POLL);
    Instant allRunning = Instant.now();
    // What the burst cost this process, agents and servers included: on a saturated machine a
    // steadier figure than the time, which moves ±20% with whatever else the machine runs.
    long cpu = processCpuNanos() - cpuAtStart;
    r.put("cpuSecondsToAllRunning", Math.round(cpu / 1e7) / 100.0);
    r.put("cpuMillisPerVm", Math.round(cpu / 1e5 / vms) / 10.0);
    // The CLI's server is a process of its own (0 ticks with the embedded one, counted above).
    r.put(
        "serverCpuMillisPerVm",
        Math.round((serverCpuTicks() - serverTicksAtStart) * 100.0 / vms) / 10.0);
    Map<String, Double> byThread = threadCpu.millisPerVmSince(vms);
    r.put("cpuMillisPerVmByThread", byThread);
    System.out.println(
        "CPU ms per VM by thread: "
            + byThread
            + ", Temporal CLI server: "
            + r.get("serverCpuMillisPerVm"));
    clusterRuns.add(clusterRun(temporal));
    double seconds = Duration.between(start, allRunning).toMillis() / 1000.0;
    r.put("submitSeconds", Duration.between(start, submitted).toMillis() / 1000.0);
    r.put(
        "submittedPerSecond",
        Math.round(vms * 1000.0 / Math.max(1, Duration.between(start, submitted).toMillis())));
    r.put("batch", SET ? "set" : BATCH);
    r.put("submitsRetriedAfter429Or503", calls.refusedForNow.get());
    r.put("allRunningSeconds", seconds);
    r.put("vmsPerSecond", Math.round(vms / seconds * 10) / 10.0);
    r.put("submitToRunningMillis", latencies(api));

    // A VM runs without waiting for its workflow, which is started after its submission was
    // answered: the
    // burst's Temporal cost is counted until every workflow has started and heard what its VM did.
    HarnessApi.await(
        "every VM's workflow started", () -> starts.count() == 0, Duration.ofMinutes(10));
    Instant workflowsStarted = Instant.now();
    r.put("workflowsStartedSeconds", Duration.between(start, workflowsStarted).toMillis() / 1000.0);
    // The whole burst's cost: a VM's workflow starts once it runs, so most of the Temporal server's
    // work comes after all ran.
    r.put(
        "cpuMillisPerVmToWorkflowsStarted",
        Math.round((processCpuNanos() - cpuAtStart) / 1e5 / vms) / 10.0);
    r.put(
        "serverCpuMillisPerVmToWorkflowsStarted",
        Math.round((serverCpuTicks() - serverTicksAtStart) * 100.0 / vms) / 10.0);
    System.out.printf(
        "every VM's workflow started at %.1f s%n",
        Duration.between(start, workflowsStarted).toMillis() / 1000.0);
    Map<EventType, Long> placeCost =
        cost(temporal, clusterRuns, vms, start, Instant.now().plusSeconds(1));
    r.put("actionsPerVm", Math.round(actions(placeCost) / (double) vms * 100) / 100.0);
    r.put("actionsByKindPerVm", perVm(placeCost, vms));
    r.put("clusterEventsPerTerm", clusterEventsPerTerm(temporal, clusterRuns, start, allRunning));
    r.put("heapPeakMiB", heap.peakMiB());
    r.put("heapLiveMiB", heap.liveMiB());
    System.out.println(calls.json(r));
  }

  /**
   * Every VM deleted, and the host idle again: the next burst finds it as after a day's work, not
   * fresh.
   */
  private void deleteAll(String api, int vms) throws Exception {
    calls.deleteSubmitted(vms, SET ? 0 : BATCH, api, CLIENT_THREADS);
    HarnessApi.await(
        "every VM deleted",
        () -> {
          try {
            return ((List<?>) calls.get(api + "/v1/vms?limit=1").get("items")).isEmpty();
          } catch (Exception e) {
            return false;
          }
        },
        Duration.ofMinutes(5));
    if (SET) {
      HarnessApi.await(
          "the set deleted",
          () -> calls.status(api + "/v1/vm-sets/load") == 404,
          Duration.ofMinutes(5));
    }
    Thread.sleep(2_000); // the deletions' last news and terms, before the next burst's clock starts
  }

  /**
   * The last burst's VMs idle for a minute, then a tenth of the agents killed: what each cost goes
   * into {@code r}.
   */
  private void idleThenFailover(
      Map<String, Object> r,
      String api,
      RotaHost host,
      WorkflowClient temporal,
      Set<String> clusterRuns,
      int workers,
      int vms)
      throws Exception {
    // Idle: every VM running, nothing changing.
    Instant idleStart = Instant.now();
    long cpuAtIdle = processCpuNanos();
    ThreadCpu idleThreads = ThreadCpu.now();
    Thread.sleep(IDLE.toMillis());
    Instant idleEnd = Instant.now();
    // What keeping the cluster costs with nothing to do (heartbeats, probes, terms): the floor
    // under a burst.
    r.put(
        "idleCpuCores",
        Math.round(
                (processCpuNanos() - cpuAtIdle)
                    / 1e4
                    / Duration.between(idleStart, idleEnd).toMillis())
            / 100.0);
    Map<String, Double> idleByThread =
        idleThreads.millisPerSecondSince(Duration.between(idleStart, idleEnd));
    r.put("idleCpuMillisPerSecondByThread", idleByThread);
    System.out.println(
        "idle: " + r.get("idleCpuCores") + " cores; CPU ms per second by thread: " + idleByThread);
    clusterRuns.add(clusterRun(temporal));
    Map<EventType, Long> idleCost = cost(temporal, clusterRuns, vms, idleStart, idleEnd);
    r.put(
        "idleActionsPerMinute",
        Math.round(actions(idleCost) * 60_000.0 / Duration.between(idleStart, idleEnd).toMillis()));

    // Failure: kill a tenth of the agents; their VMs must run elsewhere.
    List<Agent> agents = host.devAgents();
    int kill = Math.max(1, workers / 10);
    Set<String> killed = new HashSet<>();
    for (int i = 0; i < kill; i++) {
      agents.get(i).close();
      killed.add(agents.get(i).name());
    }
    Instant killedAt = Instant.now();
    Set<String> stillHolding = new HashSet<>(killed);
    runningOnAndForgetEmpty(api, stillHolding);
    // Offline is judged from the last heartbeat: the bound is that deadline plus two terms. Only
    // the killed workers that held VMs count (packed, most hold none): a later heartbeat of an
    // empty one would put the deadline after their VMs had rightly moved.
    Instant offlineAt =
        lastSeen(api, stillHolding.isEmpty() ? killed : stillHolding)
            .plus(duration("rota.workers.lost-after"))
            .plus(duration("rota.workers.offline-after"));
    HarnessApi.await(
        "VMs moved off the dead workers",
        () -> {
          try {
            return calls.count(api, "vms", "running") == vms
                && runningOnAndForgetEmpty(api, stillHolding) == 0;
          } catch (Exception e) {
            return false;
          }
        },
        Duration.ofMinutes(10));
    Instant movedAt = Instant.now();
    r.put("failoverSeconds", Duration.between(killedAt, movedAt).toMillis() / 1000.0);
    r.put("failoverAfterOfflineSeconds", Duration.between(offlineAt, movedAt).toMillis() / 1000.0);
    r.put("termIntervalSeconds", duration("rota.scheduler.interval").toMillis() / 1000.0);
    r.put("killedAgents", kill);
    System.out.println(calls.json(r));
  }

  /** The latest heartbeat of {@code workers}, as the API shows it. */
  @SuppressWarnings("unchecked")
  private Instant lastSeen(String api, Set<String> workers) throws Exception {
    Instant latest = Instant.EPOCH;
    for (String w : workers) {
      Instant seen = Instant.parse((String) calls.get(api + "/v1/workers/" + w).get("lastSeen"));
      latest = seen.isAfter(latest) ? seen : latest;
    }
    return latest;
  }

  /** A duration setting as this run has it ({@code 5s}, {@code 3m}). */
  private static Duration duration(String key) {
    Object v = settings().getOrDefault(key, DEFAULTS.get(key));
    String text = String.valueOf(v).trim();
    long n = Long.parseLong(text.replaceAll("[a-z]+$", ""));
    return switch (text.replaceAll("^[0-9]+", "")) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> throw new IllegalArgumentException(key + "=" + text);
    };
  }

  /** The product's defaults of the settings the harness reads back (docs/configuration.md). */
  private static final Map<String, String> DEFAULTS =
      Map.of(
          "rota.scheduler.interval",
          "5s",
          "rota.workers.lost-after",
          "30s",
          "rota.workers.offline-after",
          "3m");

  static String clusterRun(WorkflowClient temporal) {
    return temporal
        .newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID)
        .describe()
        .getExecution()
        .getRunId();
  }

  /**
   * Events that cost an action, by kind, in every VM workflow and every cluster run seen, within
   * the window.
   */
  static Map<EventType, Long> cost(
      WorkflowClient temporal, Set<String> clusterRuns, int vms, Instant from, Instant to) {
    Map<EventType, Long> counts = new EnumMap<>(EventType.class);
    for (String run : clusterRuns) {
      count(temporal.fetchHistory(ClusterWorkflow.WORKFLOW_ID, run).getEvents(), from, to, counts);
    }
    List<LastNews> news = new ArrayList<>();
    for (int i = 0; i < vms; i++) {
      List<HistoryEvent> events =
          temporal.fetchHistory(VmWorkflow.workflowId("load-" + i)).getEvents();
      count(events, from, to, counts);
      lastNews(events, from, to).ifPresent(news::add);
    }
    // Where a VM's last news before all ran spent its time: when it was signalled (from the start),
    // how long the workflow task that heard it waited for a worker, how long it took (with its
    // read-model write), when the read model had it; and the history of the VM the read model had
    // last.
    if (!news.isEmpty()) {
      System.out.printf(
          "VM workflows' last news from %s: signalled at %s s; task waited %s ms; task ran %s ms; recorded at %s s (p50/p99/max)%n",
          from,
          spread(news, LastNews::signalledAt, 1000),
          spread(news, LastNews::taskWait, 1),
          spread(news, LastNews::taskRun, 1),
          spread(news, LastNews::recordedAt, 1000));
      news.stream()
          .filter(n -> n.recordedAt() != null)
          .max(java.util.Comparator.comparingLong(LastNews::recordedAt))
          .ifPresent(
              last -> System.out.println("the VM recorded last:" + timeline(last.events(), from)));
    }
    return counts;
  }

  /**
   * A VM's last news within the window, in ms: when it was signalled (from the window's start), how
   * long the workflow task that heard it waited and ran, when its read-model write was recorded;
   * null when not seen.
   */
  private record LastNews(
      Long signalledAt, Long taskWait, Long taskRun, Long recordedAt, List<HistoryEvent> events) {}

  private static Optional<LastNews> lastNews(List<HistoryEvent> events, Instant from, Instant to) {
    int signal = -1;
    for (int i = 0; i < events.size(); i++) {
      Instant t = at(events.get(i));
      if (events.get(i).getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
          && !t.isBefore(from)
          && !t.isAfter(to)) {
        signal = i;
      }
    }
    if (signal < 0) {
      return Optional.empty();
    }
    Long recordedAt = null;
    for (int i = signal + 1; i < events.size() && recordedAt == null; i++) {
      if (events.get(i).getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
        recordedAt = Duration.between(from, at(events.get(i))).toMillis();
      }
    }
    // The task that heard it: the first to start after it, scheduled after it or (a first task)
    // before.
    Instant scheduled = null;
    Instant started = null;
    Long taskWait = null;
    Long taskRun = null;
    for (int i = 0; i < events.size() && taskRun == null; i++) {
      HistoryEvent e = events.get(i);
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED -> scheduled = started == null ? at(e) : scheduled;
        case EVENT_TYPE_WORKFLOW_TASK_STARTED ->
            started = i > signal && started == null ? at(e) : started;
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> {
          if (started != null) {
            taskWait = Duration.between(scheduled, started).toMillis();
            taskRun = Duration.between(started, at(e)).toMillis();
          }
        }
        default -> {}
      }
    }
    return Optional.of(
        new LastNews(
            Duration.between(from, at(events.get(signal))).toMillis(),
            taskWait,
            taskRun,
            recordedAt,
            events));
  }

  private static String timeline(List<HistoryEvent> events, Instant from) {
    StringBuilder lines = new StringBuilder();
    for (HistoryEvent e : events) {
      lines.append(
          String.format(
              "%n  %d %s %.3f s",
              e.getEventId(), e.getEventType(), Duration.between(from, at(e)).toMillis() / 1000.0));
    }
    return lines.toString();
  }

  private static Instant at(HistoryEvent e) {
    return Instant.ofEpochSecond(e.getEventTime().getSeconds(), e.getEventTime().getNanos());
  }

  private static String spread(
      List<LastNews> news, java.util.function.Function<LastNews, Long> value, long unit) {
    List<Long> sorted =
        news.stream().map(value).filter(java.util.Objects::nonNull).sorted().toList();
    if (sorted.isEmpty()) {
      return "-";
    }
    return String.format(
        "%.1f/%.1f/%.1f",
        pct(sorted, 50) / (double) unit,
        pct(sorted, 99) / (double) unit,
        sorted.get(sorted.size() - 1) / (double) unit);
  }

  private static final Set<EventType> ACTIONS =
      Set.of(
          EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
          EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
          EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
          EventType.EVENT_TYPE_TIMER_STARTED,
          EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);

  static void count(
      List<HistoryEvent> events, Instant from, Instant to, Map<EventType, Long> counts) {
    for (HistoryEvent e : events) {
      Instant t = Instant.ofEpochSecond(e.getEventTime().getSeconds(), e.getEventTime().getNanos());
      if (ACTIONS.contains(e.getEventType()) && !t.isBefore(from) && !t.isAfter(to)) {
        counts.merge(e.getEventType(), 1L, Long::sum);
      }
    }
  }

  static long actions(Map<EventType, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  static Map<String, Double> perVm(Map<EventType, Long> counts, int vms) {
    Map<String, Double> m = new LinkedHashMap<>();
    counts.forEach(
        (k, v) ->
            m.put(
                k.name().replace("EVENT_TYPE_", "").toLowerCase(),
                Math.round(v * 100.0 / vms) / 100.0));
    return m;
  }

  private static double clusterEventsPerTerm(
      WorkflowClient temporal, Set<String> runs, Instant from, Instant to) {
    long events = 0;
    long terms = 0;
    for (String run : runs) {
      for (HistoryEvent e : temporal.fetchHistory(ClusterWorkflow.WORKFLOW_ID, run).getEvents()) {
        Instant t =
            Instant.ofEpochSecond(e.getEventTime().getSeconds(), e.getEventTime().getNanos());
        if (!t.isBefore(from) && !t.isAfter(to)) {
          events++;
          // A term is one term activity; a woken term starts no timer, so timers would undercount.
          if (e.hasActivityTaskScheduledEventAttributes()
              && TERM_ACTIVITIES.contains(
                  e.getActivityTaskScheduledEventAttributes().getActivityType().getName())) {
            terms++;
          }
        }
      }
    }
    return terms == 0 ? 0 : Math.round(events * 10.0 / terms) / 10.0;
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> latencies(String api) throws Exception {
    List<Long> millis = new ArrayList<>();
    List<Long> toPlaced = new ArrayList<>();
    List<Long> placedToRunning = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    String cursor = null;
    do {
      Map<String, Object> page =
          calls.get(api + "/v1/vms?limit=1000" + (cursor == null ? "" : "&cursor=" + cursor));
      for (Map<String, Object> vm : (List<Map<String, Object>>) page.get("items")) {
        lines.add(
            String.join(
                ",",
                String.valueOf(vm.get("name")),
                String.valueOf(vm.get("worker")),
                String.valueOf(vm.get("createdAt")),
                String.valueOf(vm.get("scheduledAt")),
                String.valueOf(vm.get("startedAt"))));
        Instant created = Instant.parse((String) vm.get("createdAt"));
        Instant scheduled = Instant.parse((String) vm.get("scheduledAt"));
        Instant started = Instant.parse((String) vm.get("startedAt"));
        millis.add(Duration.between(created, started).toMillis());
        toPlaced.add(Duration.between(created, scheduled).toMillis());
        placedToRunning.add(Duration.between(scheduled, started).toMillis());
      }
      cursor = (String) page.get("nextCursor");
    } while (cursor != null);
    String dump = System.getProperty("bench.dump");
    if (dump != null) {
      // Each VM's times, to see where a tail comes from (-Dbench.dump=DIR).
      Path csv = Path.of(dump, "vms-" + Instant.now().toString().replace(':', '-') + ".csv");
      Files.createDirectories(csv.getParent());
      lines.add(0, "name,worker,createdAt,scheduledAt,startedAt");
      Files.write(csv, lines);
    }
    Map<String, Object> m = percentiles(millis);
    // Where the time goes: waiting for a term to place the VM, then for its agent to start it and
    // say so.
    m.put("submitToPlaced", percentiles(toPlaced));
    m.put("placedToRunning", percentiles(placedToRunning));
    return m;
  }

  static Map<String, Object> percentiles(List<Long> millis) {
    Collections.sort(millis);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("p50", pct(millis, 50));
    m.put("p95", pct(millis, 95));
    m.put("p99", pct(millis, 99));
    m.put("max", millis.get(millis.size() - 1));
    return m;
  }

  private static long pct(List<Long> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }

  /**
   * The running VMs still on {@code workers}, taking out of the set each worker found with none:
   * offline, it is given nothing new, so it is asked no more and the poll costs the host less as
   * the VMs move.
   */
  private long runningOnAndForgetEmpty(String api, Set<String> workers) throws Exception {
    long n = 0;
    for (java.util.Iterator<String> it = workers.iterator(); it.hasNext(); ) {
      int there =
          ((List<?>)
                  calls
                      .get(api + "/v1/vms?status=running&limit=1000&worker=" + it.next())
                      .get("items"))
              .size();
      if (there == 0) {
        it.remove();
      }
      n += there;
    }
    return n;
  }

  /**
   * The run's data directory (the database, the agents' state): hundreds of MB at the larger sizes.
   */
  private static void deleteRecursively(Path dir) throws IOException {
    try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * User and system clock ticks (1/100 s) of the CLI's Temporal server, a process this one started;
   * 0 with none.
   */
  static long serverCpuTicks() throws IOException {
    List<ProcessHandle> servers =
        ProcessHandle.current()
            .descendants()
            .filter(
                p ->
                    p.info()
                        .commandLine()
                        .map(c -> c.contains("start-dev") && !c.startsWith("sh"))
                        .orElse(false))
            .toList();
    return servers.stream().mapToLong(p -> ProcStat.ticks(p.pid())).sum();
  }

  /** A free port below the kernel's ephemeral range ({@link dev.rota.host.LoopbackPorts}). */
  static int freePort() {
    return dev.rota.host.LoopbackPorts.free();
  }

  static Map<String, Object> machine() {
    return Map.of(
        "cores",
        Runtime.getRuntime().availableProcessors(),
        "maxHeapMiB",
        Runtime.getRuntime().maxMemory() / (1024 * 1024),
        "java",
        System.getProperty("java.version"),
        "os",
        System.getProperty("os.name") + " " + System.getProperty("os.arch"));
  }

  @SuppressWarnings("unchecked")
  private static void printTable(List<Map<String, Object>> runs) {
    System.out.println();
    System.out.printf(
        "%-14s %6s %9s %8s %8s %9s %9s %8s %8s %8s %8s %9s %9s %10s %9s %9s%n",
        "workers x VMs",
        "batch",
        "submit/s",
        "all run s",
        "wf s",
        "VMs/s",
        "CPU ms/VM",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "act/VM",
        "ev/term",
        "idle act/m",
        "failover s",
        "after off");
    for (Map<String, Object> r : runs) {
      Map<String, Object> l = (Map<String, Object>) r.get("submitToRunningMillis");
      System.out.printf(
          "%-14s %6s %9s %8s %8s %9s %9s %8s %8s %8s %8s %9s %9s %10s %9s %9s%n",
          r.get("workers")
              + " x "
              + r.get("vms")
              + ((int) r.get("burst") > 1 ? " #" + r.get("burst") : ""),
          r.get("batch"),
          r.get("submittedPerSecond"),
          r.get("allRunningSeconds"),
          r.get("workflowsStartedSeconds"),
          r.get("vmsPerSecond"),
          r.get("cpuMillisPerVm"),
          l.get("p50"),
          l.get("p95"),
          l.get("p99"),
          l.get("max"),
          r.get("actionsPerVm"),
          r.get("clusterEventsPerTerm"),
          r.get("idleActionsPerMinute"),
          r.get("failoverSeconds"),
          r.get("failoverAfterOfflineSeconds"));
    }
  }
}
