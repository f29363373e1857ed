package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Bursts of VMs as users submit them, and the checks that what was acknowledged runs exactly once.
 * Each VM is {@code sleep <n>} with its own {@code n}, so that its process can be told from all
 * others.
 */
final class Vms {
  /** The command line names the executable by its path: {@code /usr/bin/sleep 400059}. */
  private static final Pattern SLEEP = Pattern.compile("(?:^|/)sleep (\\d+)$");

  private Vms() {}

  /** A burst under way: VMs {@code <prefix>-<i>}, each sent to {@code apiFor.apply(i)}. */
  static final class Burst {
    final Set<String> acked = ConcurrentHashMap.newKeySet();
    private final CountDownLatch firstAcks;
    private final CountDownLatch thirdAcks;
    private final ExecutorService clients;

    private Burst(
        int count, int clients, String prefix, int firstSleep, IntFunction<RotaClient> apiFor) {
      this.firstAcks = new CountDownLatch(Math.max(1, count / 10));
      this.thirdAcks = new CountDownLatch(Math.max(1, count / 3));
      this.clients = Executors.newFixedThreadPool(clients);
      for (int i = 0; i < count; i++) {
        int n = i;
        this.clients.submit(
            () -> {
              if (submit(apiFor.apply(n), prefix + "-" + n, firstSleep + n)) {
                acked.add(prefix + "-" + n);
                firstAcks.countDown();
                thirdAcks.countDown();
              }
            });
      }
    }

    /** Waits until a tenth of the burst was acknowledged: "one second in". */
    void awaitFirstTenth() throws InterruptedException {
      if (!firstAcks.await(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("the burst never got under way");
      }
    }

    /**
     * Waits until a third of the burst was acknowledged: well under way, submissions coming fast.
     */
    void awaitFirstThird() throws InterruptedException {
      if (!thirdAcks.await(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("the burst never got a third of the way");
      }
    }

    /** Waits until every request was answered or refused. */
    void finish() throws InterruptedException {
      clients.shutdown();
      if (!clients.awaitTermination(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("the burst's clients never finished");
      }
    }
  }

  /**
   * Users submitting VMs {@code <prefix>-<i>} without pause from several clients until {@link
   * #close()}: every answer is kept, with when it came, and so is every exception a client met.
   */
  static final class Load implements AutoCloseable {
    /** One answer: the VM it was for, and when it came (nanoTime). */
    record Answer(String vm, RotaClient.Reply reply, long at) {}

    /**
     * Each client's pause between its answer and its next submission: a user's pace, and a bound on
     * the VMs a run makes (with Temporal away submissions are taken as fast as the database commits
     * them, and each VM is a process here).
     */
    static final java.time.Duration PAUSE = java.time.Duration.ofMillis(250);

    final Set<String> acked = ConcurrentHashMap.newKeySet();
    final java.util.Queue<Answer> answers = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final java.util.Queue<Throwable> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger next =
        new java.util.concurrent.atomic.AtomicInteger();
    private final ExecutorService clients;
    private volatile boolean running = true;

    private Load(RotaClient api, int clients, String prefix, int firstSleep) {
      this.clients = Executors.newFixedThreadPool(clients);
      for (int c = 0; c < clients; c++) {
        this.clients.submit(
            () -> {
              while (running) {
                int n = next.getAndIncrement();
                String vm = prefix + "-" + n;
                try {
                  RotaClient.Reply reply = create(api, vm, firstSleep + n);
                  answers.add(new Answer(vm, reply, System.nanoTime()));
                  if (reply.status() == 201) {
                    acked.add(vm);
                  }
                } catch (Throwable t) {
                  failures.add(t);
                }
                try {
                  Thread.sleep(PAUSE.toMillis());
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
      }
    }

    /** Waits until {@code more} VMs more than now were acknowledged. */
    void awaitMoreAcked(int more) {
      int target = acked.size() + more;
      dev.rota.testing.Eventually.eventually(
          more + " more VMs acknowledged", JarProcess.PATIENCE, () -> acked.size() >= target);
    }

    /** The answers that came between two instants (nanoTime). */
    List<Answer> between(long from, long to) {
      return answers.stream().filter(a -> a.at() >= from && a.at() <= to).toList();
    }

    /** How many VMs were asked for: their sleeps are {@code firstSleep} onwards, this many. */
    int asked() {
      return next.get();
    }

    /** Stops submitting and waits for the requests under way. */
    @Override
    public void close() throws InterruptedException {
      running = false;
      clients.shutdown();
      if (!clients.awaitTermination(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("the load's clients never finished");
      }
    }
  }

  static Load load(RotaClient api, int clients, String prefix, int firstSleep) {
    return new Load(api, clients, prefix, firstSleep);
  }

  static Burst burst(
      int count, int clients, String prefix, int firstSleep, IntFunction<RotaClient> apiFor) {
    return new Burst(count, clients, prefix, firstSleep, apiFor);
  }

  /** Whether the API acknowledged the VM (201); a host killed mid-request acknowledges nothing. */
  static boolean submit(RotaClient api, String name, int sleep) {
    try {
      return create(api, name, sleep).status() == 201;
    } catch (AssertionError connectionRefusedOrReset) {
      return false;
    }
  }

  /** {@code POST /v1/vms} of VM {@code name} running {@code sleep <sleep>}. */
  static RotaClient.Reply create(RotaClient api, String name, int sleep) {
    return api.api(
        "POST", "/v1/vms", "{\"name\":\"" + name + "\",\"command\":[\"sleep\",\"" + sleep + "\"]}");
  }

  static Set<String> running(RotaClient api) {
    return api.allItems("/v1/vms?status=running&limit=1000").stream()
        .map(vm -> (String) vm.get("name"))
        .collect(Collectors.toSet());
  }

  /**
   * Each VM has exactly one process on this machine (a killed host's tasks are no longer its
   * descendants, so all processes are looked at), it was placed once but for placements whose start
   * failed (an agent that never ran the task: dev mode's agents come back with the host on new
   * ports, and a term may place on a worker before its agent has said where it is now), and it
   * never restarted; returns each VM's pid.
   */
  static Map<String, Long> onlyOneProcessEachAndPlacedOnce(RotaClient api, Set<String> vms) {
    Map<String, List<Long>> sleeping = sleeping();
    Map<String, Long> pids = new TreeMap<>();
    for (String vm : vms) {
      Map<String, Object> row = api.vm(vm);
      String arg = String.valueOf(((List<?>) row.get("command")).get(1));
      List<Long> processes = sleeping.getOrDefault(arg, List.of());
      assertEquals(
          1,
          processes.size(),
          vm + " has exactly one process: " + processes + "; " + row + "; " + api.eventTypes(vm));
      assertEquals(0, ((Number) row.get("restartCount")).intValue(), vm + " never restarted");
      List<String> events = api.eventTypes(vm);
      assertEquals(
          1,
          events.stream().filter("scheduled"::equals).count()
              - events.stream().filter("start-failed"::equals).count(),
          vm + " placed once, but for starts that failed: " + events);
      pids.put(vm, processes.get(0));
    }
    return pids;
  }

  /**
   * Each VM (by its {@code sleep} argument) has exactly one live process; returns each one's pid.
   */
  static Map<String, Long> onlyOneProcessEach(Map<String, String> sleepOf) {
    Map<String, List<Long>> sleeping = sleeping();
    Map<String, Long> pids = new TreeMap<>();
    sleepOf.forEach(
        (vm, sleep) -> {
          List<Long> processes = sleeping.getOrDefault(sleep, List.of());
          assertEquals(1, processes.size(), vm + " has exactly one process: " + processes);
          pids.put(vm, processes.get(0));
        });
    return pids;
  }

  /** Ends every VM process whose {@code sleep} argument is in [from, to). */
  static void endProcesses(int from, int to) {
    ProcessHandle.allProcesses()
        .forEach(
            p ->
                p.info()
                    .commandLine()
                    .map(SLEEP::matcher)
                    .filter(Matcher::find)
                    .filter(
                        m ->
                            Integer.parseInt(m.group(1)) >= from
                                && Integer.parseInt(m.group(1)) < to)
                    .ifPresent(m -> p.destroyForcibly()));
  }

  /** The live processes of VMs, by their {@code sleep} argument. */
  static Map<String, List<Long>> sleeping() {
    Map<String, List<Long>> sleeping = new TreeMap<>();
    ProcessHandle.allProcesses()
        .filter(ProcessHandle::isAlive)
        .forEach(
            p ->
                p.info()
                    .commandLine()
                    .map(SLEEP::matcher)
                    .filter(Matcher::find)
                    .ifPresent(
                        m ->
                            sleeping
                                .computeIfAbsent(m.group(1), k -> new ArrayList<>())
                                .add(p.pid())));
    return sleeping;
  }
}
