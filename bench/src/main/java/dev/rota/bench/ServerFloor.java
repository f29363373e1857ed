package dev.rota.bench;

import dev.rota.host.temporal.CliTemporalServer;
import dev.rota.host.temporal.EmbeddedTemporalServer;
import dev.rota.host.temporal.LocalTemporalServer;
import dev.rota.host.temporal.SearchAttributeRegistrar;
import dev.rota.workflows.RotaSearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the Temporal server alone allows on this machine: the floor under the load harness's
 * figures. It runs the bare pattern of a VM's workflow from submission to running, with no
 * database, agents or scheduler: a start with a search attribute, a signal a moment later, one
 * search-attribute upsert; the workflow then waits, as a VM's does. Same SDK, server, worker cache
 * and 64 starts in flight as Rota's host. Then it ends them all, as a deleted set's replicas are
 * ended (8 calls in flight, or {@code -Dfloor.ending-in-flight=N}).
 *
 * <pre>java -cp bench/target/rota-bench.jar dev.rota.bench.ServerFloor 10000
 * java -Drota.temporal.dev-server=cli -Drota.temporal.cli=$(.ci/temporal path) -cp … ServerFloor 10000
 * </pre>
 */
public final class ServerFloor {
  private static final int IN_FLIGHT = 64;
  private static final String QUEUE = "floor";

  /**
   * A term's time between a VM's start and its placing; negative: no signal, starts alone are
   * timed.
   */
  private static final Duration SIGNAL_AFTER =
      Duration.ofMillis(Long.getLong("floor.signal-after-ms", 500));

  /** Terminations in flight, as a set's deletion ends its replicas' workflows. */
  private static final int ENDING_IN_FLIGHT = Integer.getInteger("floor.ending-in-flight", 8);

  /** The SDK's default unless {@code -Dfloor.pollers=N}. */
  private static final int POLLERS = Integer.getInteger("floor.pollers", 5);

  private static final int CACHE = Integer.getInteger("rota.temporal.workflow-cache-size", 600);

  @WorkflowInterface
  public interface VmLike {
    @WorkflowMethod
    void run(String name);

    @SignalMethod
    void placed(String worker);
  }

  /** Shown running once placed; notes the time in {@code running} the first time it gets there. */
  public static final class VmLikeImpl implements VmLike {
    private final Map<String, Long> running;
    private String worker;

    /**
     * @param running when each workflow was first shown running, by name: the bench's clock,
     *     outside the workflow's logic
     */
    VmLikeImpl(Map<String, Long> running) {
      this.running = running;
    }

    @Override
    public void run(String name) {
      Workflow.await(() -> worker != null);
      Workflow.upsertTypedSearchAttributes(
          RotaSearchAttributes.VM_STATUS.valueSet("running"),
          RotaSearchAttributes.WORKER.valueSet(worker));
      if (!Workflow.isReplaying()) {
        running.putIfAbsent(name, System.nanoTime());
      }
      Workflow.await(() -> false);
    }

    @Override
    public void placed(String worker) {
      this.worker = worker;
    }
  }

  /**
   * One run per argument (a number of workflows), each on a new server, in this one JVM: later runs
   * are warm.
   */
  public static void main(String[] args) throws Exception {
    for (String n : args.length == 0 ? new String[] {"10000"} : args) {
      run(Integer.parseInt(n));
    }
    System.exit(0);
  }

  private static void run(int n) throws Exception {
    boolean cli = "cli".equals(System.getProperty("rota.temporal.dev-server"));
    Path data = Files.createTempDirectory("rota-floor");
    int port = LoadHarness.freePort();
    try (LocalTemporalServer server =
        cli
            ? CliTemporalServer.start(
                Path.of(System.getProperty("rota.temporal.cli")),
                port,
                LoadHarness.freePort(),
                data,
                RotaSearchAttributes.ALL)
            : EmbeddedTemporalServer.start(port)) {
      WorkflowServiceStubsOptions.Builder options = WorkflowServiceStubsOptions.newBuilder();
      server
          .inProcessChannel()
          .ifPresentOrElse(options::setChannel, () -> options.setTarget("127.0.0.1:" + port));
      WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options.build());
      SearchAttributeRegistrar.of(stubs, "default")
          .registerMissing(); // the CLI's server has them from its start
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      Map<String, Long> running = new ConcurrentHashMap<>();
      Map<String, Long> submitted = new ConcurrentHashMap<>();
      WorkerFactory factory =
          WorkerFactory.newInstance(
              client,
              WorkerFactoryOptions.newBuilder()
                  .setWorkflowCacheSize(CACHE)
                  .setMaxWorkflowThreadCount(CACHE)
                  .build());
      Worker worker =
          factory.newWorker(
              QUEUE,
              io.temporal.worker.WorkerOptions.newBuilder()
                  .setMaxConcurrentWorkflowTaskPollers(POLLERS)
                  .build());
      worker.registerWorkflowImplementationFactory(VmLike.class, () -> new VmLikeImpl(running));
      factory.start();
      System.out.printf(
          "== %d VM-like workflows on %s, cache %d, %d pollers, signal %d ms after each start%n",
          n, server.description(), CACHE, POLLERS, SIGNAL_AFTER.toMillis());

      ScheduledExecutorService starters = Executors.newScheduledThreadPool(IN_FLIGHT);
      AtomicInteger started = new AtomicInteger();
      AtomicLong lastStart = new AtomicLong();
      long cpu0 = LoadHarness.processCpuNanos();
      long serverCpu0 = LoadHarness.serverCpuTicks();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        String name = "vm-" + i;
        starters.execute(
            () -> {
              submitted.put(name, System.nanoTime());
              VmLike stub =
                  client.newWorkflowStub(
                      VmLike.class,
                      WorkflowOptions.newBuilder()
                          .setWorkflowId(name)
                          .setTaskQueue(QUEUE)
                          .setTypedSearchAttributes(
                              SearchAttributes.newBuilder()
                                  .set(RotaSearchAttributes.VM_STATUS, "pending")
                                  .build())
                          .build());
              WorkflowClient.start(stub::run, name);
              started.incrementAndGet();
              lastStart.set(System.nanoTime());
              if (!SIGNAL_AFTER.isNegative()) {
                starters.schedule(
                    () -> client.newWorkflowStub(VmLike.class, name).placed("w"),
                    SIGNAL_AFTER.toMillis(),
                    TimeUnit.MILLISECONDS);
              }
            });
      }
      while (SIGNAL_AFTER.isNegative() ? started.get() < n : running.size() < n) {
        Thread.sleep(100);
      }
      double all = (System.nanoTime() - t0) / 1e9;
      double startsDone = (lastStart.get() - t0) / 1e9;
      double hostCpu = (LoadHarness.processCpuNanos() - cpu0) / 1e9;
      double serverCpu = (LoadHarness.serverCpuTicks() - serverCpu0) / 100.0;
      System.out.printf(
          Locale.ROOT,
          "starts: %.1f s (%.0f a second); all shown running: %.1f s (%.0f a second); CPU: host %.1f s (%.2f ms each),"
              + " server %s%n",
          startsDone,
          n / startsDone,
          all,
          n / all,
          hostCpu,
          hostCpu * 1000 / n,
          cli
              ? String.format(Locale.ROOT, "%.1f s (%.2f ms each)", serverCpu, serverCpu * 1000 / n)
              : "in the host");
      if (!SIGNAL_AFTER.isNegative()) {
        long[] latencies =
            running.entrySet().stream()
                .mapToLong(e -> e.getValue() - submitted.get(e.getKey()))
                .sorted()
                .toArray();
        System.out.printf(
            Locale.ROOT,
            "start to shown running: p50 %.3f s, p99 %.3f s, max %.3f s%n",
            latencies[n / 2] / 1e9,
            latencies[n * 99 / 100] / 1e9,
            latencies[n - 1] / 1e9);
      }
      end(client, n, cli);
      starters.shutdownNow();
      factory.shutdownNow();
      stubs.shutdownNow();
    }
  }

  /**
   * Terminates the {@code n} workflows, {@link #ENDING_IN_FLIGHT} at a time, as a deleted set's
   * replicas are ended: the floor under a set's deletion.
   */
  private static void end(WorkflowClient client, int n, boolean cli) throws Exception {
    java.util.concurrent.ExecutorService ending = Executors.newFixedThreadPool(ENDING_IN_FLIGHT);
    long serverCpu0 = LoadHarness.serverCpuTicks();
    long t0 = System.nanoTime();
    java.util.List<java.util.concurrent.Future<?>> calls = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = "vm-" + i;
      calls.add(ending.submit(() -> client.newUntypedWorkflowStub(name).terminate("ended")));
    }
    for (java.util.concurrent.Future<?> call : calls) {
      call.get();
    }
    double all = (System.nanoTime() - t0) / 1e9;
    double serverCpu = (LoadHarness.serverCpuTicks() - serverCpu0) / 100.0;
    System.out.printf(
        Locale.ROOT,
        "all ended (%d at a time): %.1f s (%.0f a second); server CPU %s%n",
        ENDING_IN_FLIGHT,
        all,
        n / all,
        cli
            ? String.format(Locale.ROOT, "%.1f s (%.2f ms each)", serverCpu, serverCpu * 1000 / n)
            : "in the host");
    ending.shutdownNow();
  }
}
