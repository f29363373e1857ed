package dev.rota.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A dev stack with short deadlines and real agents, and the HTTP a user would send it. */
final class Stack implements AutoCloseable {

  final RotaHost host;
  final int port;
  private final Path dataDir;
  private final RotaClient client;

  Stack(Path dataDir) {
    this(dataDir, Map.of());
  }

  /** A stack whose settings are the short ones below with {@code overrides} put over them. */
  Stack(Path dataDir, Map<String, Object> overrides) {
    this.dataDir = dataDir;
    port = FreePorts.next();
    Map<String, Object> props = DevStackTest.devProperties(port, FreePorts.next(), dataDir);
    props.put("rota.scheduler.interval", "1s");
    props.put("rota.workers.lost-after", "2s");
    props.put("rota.workers.offline-after", "2s");
    props.put("rota.vms.restart-delay", "1s");
    props.put("rota.vms.max-restart-delay", "2s");
    props.put("rota.agent.heartbeat-interval", "300ms");
    props.put("rota.agents.timeout", "1s");
    props.put("rota.dev.agent-resources", WHOLE_MACHINE);
    props.putAll(overrides);
    host = RotaHost.start(HostMode.DEV, props);
    client = new RotaClient("http://127.0.0.1:" + port, null);
  }

  /**
   * What each test agent offers: the whole machine, as the tests were sized for, where dev mode
   * gives each its share.
   */
  static final String WHOLE_MACHINE =
      "cpu="
          + Runtime.getRuntime().availableProcessors()
          + ",memory="
          + dev.rota.agent.config.AgentConfig.machineMemoryMib();

  /** A stack whose two agents are both ready, as the tests that place VMs need it. */
  static Stack withAgentsReady(Path dataDir) {
    return withAgentsReady(dataDir, Map.of());
  }

  static Stack withAgentsReady(Path dataDir, Map<String, Object> overrides) {
    Stack stack = new Stack(dataDir, overrides);
    dev.rota.testing.Eventually.eventually(
        "both agents ready",
        () -> {
          Map<String, Object> cluster = stack.api("GET", "/v1/cluster", null).map();
          return Integer.valueOf(2).equals(((Map<?, ?>) cluster.get("workers")).get("ready"));
        });
    return stack;
  }

  RotaClient.Reply send(String method, String url, String body) {
    return client.send(method, url, body, null);
  }

  RotaClient.Reply send(String method, String url, String body, String bearer) {
    return client.send(method, url, body, bearer);
  }

  /** The API's address, {@code http://127.0.0.1:<port>}. */
  String base() {
    return client.base();
  }

  RotaClient.Reply api(String method, String path, String body) {
    return client.api(method, path, body);
  }

  Map<String, Object> vm(String name) {
    return client.vm(name);
  }

  List<String> eventTypes(String vm) {
    return client.eventTypes(vm);
  }

  List<Map<String, Object>> items(String path) {
    return client.items(path);
  }

  /** Processes this JVM's agents started whose command line ends with {@code args}. */
  static List<ProcessHandle> processes(String args) {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.endsWith(args)).orElse(false))
        .toList();
  }

  /** Stops the host, then ends its tasks' processes ({@link #endTasks}). */
  @Override
  public void close() {
    host.close();
    endTasks(dataDir);
  }

  /**
   * Tasks outlive their agents, as on a real machine; a test ends them too, and waits until each
   * ended process has had its exit recorded in its task folder under {@code dataDir}, so that the
   * test's temporary folder is not being written while JUnit removes it.
   */
  static void endTasks(Path dataDir) {
    List<ProcessHandle> left = ProcessHandle.current().descendants().toList();
    left.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : left) {
      p.onExit().completeOnTimeout(p, 5, java.util.concurrent.TimeUnit.SECONDS).join();
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline && !exitsRecorded(dataDir)) {
      sleep(50);
    }
  }

  /** Every task folder with a process record also has its exit code (or was already removed). */
  private static boolean exitsRecorded(Path dataDir) {
    Path agents = dataDir.resolve("agents");
    if (!java.nio.file.Files.isDirectory(agents)) {
      return true;
    }
    try (var records =
        java.nio.file.Files.find(
            agents, 4, (f, a) -> f.getFileName().toString().equals("task.json"))) {
      return records.allMatch(
          r ->
              java.nio.file.Files.exists(r.resolveSibling("exit-code"))
                  || !java.nio.file.Files.exists(r));
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return false; // a folder went away while it was read: look again
    }
  }

  /**
   * Removes a closed stack's data folder. An agent's thread can still be finishing what it began
   * before the close (a file written beside and renamed into place), so a folder that gains an
   * entry while it is removed is removed again, for a few seconds, rather than failing the class
   * that used it.
   */
  static void removeData(Path dataDir) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      try (var paths = java.nio.file.Files.walk(dataDir)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.deleteIfExists(p);
        }
        return;
      } catch (java.nio.file.NoSuchFileException e) {
        if (!java.nio.file.Files.exists(dataDir)) {
          return;
        }
      } catch (java.io.IOException | java.io.UncheckedIOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the stack's data folder cannot be removed", e);
        }
      }
      sleep(100);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
