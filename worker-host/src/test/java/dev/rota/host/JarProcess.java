package dev.rota.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A shipped jar ({@code rota.jar}, {@code rota-agent.jar}) run as its own process, as users run it,
 * with its output in a file. The waits below are patience for real processes, not assertions of
 * speed.
 */
final class JarProcess implements AutoCloseable {
  static final Duration PATIENCE = Duration.ofSeconds(90);

  private final String name;
  private final List<String> wrapper;
  private final Path jar;
  private final List<String> args;
  private final ClassArchive archive;
  private final Map<String, String> env;
  private final Path dir;
  private Process process;
  private boolean training;
  private Path out;
  private int starts;

  private JarProcess(
      String name,
      List<String> wrapper,
      String jar,
      List<String> args,
      Map<String, String> env,
      Path dir) {
    if (jar == null || !Files.exists(Path.of(jar))) {
      throw new IllegalStateException("no jar at " + jar + "; run these tests with 'mvn verify'");
    }
    this.name = name;
    this.wrapper = wrapper;
    this.jar = Path.of(jar);
    this.args = args;
    this.archive = ClassArchive.of(this.jar);
    this.env = env;
    this.dir = dir;
  }

  /** {@code java -jar <rota.jar>} with no argument: a production host. */
  static JarProcess host(String name, Map<String, String> env, Path dir) {
    return new JarProcess(name, List.of(), System.getProperty("rota.jar"), List.of(), env, dir);
  }

  /** {@code java -jar <rota.jar> dev}. */
  static JarProcess dev(String name, Map<String, String> env, Path dir) {
    return dev(name, env, dir, List.of());
  }

  /** {@code java -jar <rota.jar> dev ARGS…}. */
  static JarProcess dev(String name, Map<String, String> env, Path dir, List<String> args) {
    List<String> all = new java.util.ArrayList<>(List.of("dev"));
    all.addAll(args);
    Map<String, String> sized = new java.util.HashMap<>(env);
    sized.putIfAbsent("ROTA_DEV_AGENT_RESOURCES", Stack.WHOLE_MACHINE);
    return new JarProcess(name, List.of(), System.getProperty("rota.jar"), all, sized, dir);
  }

  /**
   * The settings of a dev host as a hostile world meets it: auth on with this admin token,
   * synthetic agents only (what callers submit runs nothing real), on the given API port and data
   * folder.
   */
  static Map<String, String> guardedDev(int apiPort, Path data, String adminToken) {
    return new java.util.HashMap<>(
        Map.of(
            "MICRONAUT_SERVER_PORT",
            String.valueOf(apiPort),
            "ROTA_TEMPORAL_PORT",
            String.valueOf(FreePorts.next()),
            "ROTA_DATA_DIR",
            data.toString(),
            "ROTA_AUTH_ENABLED",
            "true",
            "ROTA_BOOTSTRAP_ADMIN_TOKEN",
            adminToken,
            "ROTA_DEV_AGENT_RUNTIMES",
            "synthetic"));
  }

  static JarProcess agent(String name, Map<String, String> env, Path dir) {
    return new JarProcess(
        name, List.of(), System.getProperty("rota.agent.jar"), List.of(), env, dir);
  }

  /**
   * {@code rota-agent.jar} in network namespace {@code namespace} ({@code nsenter}, which then is
   * the agent). Not {@code ip netns exec}: that mounts a /sys of its own, without the machine's
   * control groups, which the agent's tasks need.
   */
  static JarProcess agentIn(String namespace, String name, Map<String, String> env, Path dir) {
    return new JarProcess(
        name,
        List.of("nsenter", "--net=/run/netns/" + namespace),
        System.getProperty("rota.agent.jar"),
        List.of(),
        env,
        dir);
  }

  /**
   * The JVM options of a process that lives a minute or less, several at once on two cores (the
   * hosts and agents of a test, the CLI): C2's compiles and a parallel collector's threads only
   * take CPU from the work they would speed up. They took a third off LostWorkflowsIT's and
   * DurableAcksIT's time; bin/rota gives the CLI the same.
   */
  static final List<String> SHORT_LIVED = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  /** Starts (or starts again) the process, its output going to a new file. */
  JarProcess start() throws IOException {
    starts++;
    out = dir.resolve(name + "-" + starts + ".out");
    ClassArchive.Launch launch = archive.launch();
    List<String> command = new ArrayList<>(wrapper);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.addAll(SHORT_LIVED);
    command.addAll(launch.options());
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    builder.environment().putAll(env);
    process = builder.start();
    training = launch.trains();
    if (training) {
      // However it ends (stopped, killed by a test, exited by itself), the archive is kept or let
      // go.
      process.onExit().thenRun(archive::trained);
    }
    return this;
  }

  /** One start of a process on ports chosen for it, and what it gives. */
  interface OnPorts<T> {
    T start() throws Exception;
  }

  /**
   * {@code start}, made again (three times at most) while it fails because a port it chose was free
   * when chosen and taken before the process listened on it (a VM's forwarded port, another test's
   * server): each time it chooses its ports anew.
   */
  static <T> T onFreePorts(OnPorts<T> start) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return start.start();
      } catch (AssertionError e) {
        if (attempt < 3
            && String.valueOf(e.getMessage())
                .toLowerCase(java.util.Locale.ROOT)
                .contains("address already in use")) {
          continue;
        }
        throw e;
      }
    }
  }

  /** Waits until its output holds {@code marker}; fails with the output if it exits first. */
  JarProcess awaitOutput(String marker) throws Exception {
    Instant deadline = Instant.now().plus(PATIENCE);
    while (Instant.now().isBefore(deadline)) {
      if (output().contains(marker)) {
        return this;
      }
      if (!process.isAlive()) {
        throw new AssertionError(name + " exited with " + process.exitValue() + ":\n" + output());
      }
      Thread.sleep(100);
    }
    throw new AssertionError(
        name + " printed no '" + marker + "' within " + PATIENCE + ":\n" + output());
  }

  String output() throws IOException {
    return out != null && Files.exists(out) ? Files.readString(out) : "";
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no draining, nothing flushed. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  /** Its exit code once it has ended by itself. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError(name + " did not exit within " + PATIENCE);
    }
    return process.exitValue();
  }

  /** SIGTERM, and its exit code once it has stopped. */
  int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError(name + " did not stop within " + PATIENCE + " of SIGTERM");
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (alive() && training) {
      // The process writing its jar's class archive does so as it exits: a SIGTERM lets it.
      process.destroy();
      process.waitFor(30, TimeUnit.SECONDS);
    }
    if (alive()) {
      kill();
    }
  }
}
