package dev.rota.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive as a user meets it: unpacked into an empty folder, with nothing from the
 * build beside it, its {@code bin/rota} starts dev mode, and its CLI runs a VM (a real process)
 * there. The deadlines bound waiting for processes; they assert nothing about speed.
 */
class ReleaseArchiveIT {
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  @TempDir Path empty;

  @Test
  void unpackedItRunsDevModeAndAVmFromItsOwnFiles() throws Exception {
    Path archive = Path.of(System.getProperty("rota.archive"));
    Path unpacked = Files.createDirectory(empty.resolve("unpacked"));
    run(List.of("tar", "xzf", archive.toString(), "-C", unpacked.toString()), Map.of(), empty);
    Path home;
    try (var entries = Files.list(unpacked)) {
      home = entries.findFirst().orElseThrow();
    }
    Path rota = home.resolve("bin/rota");
    assertTrue(Files.isExecutable(rota), "bin/rota is executable");
    for (String file :
        List.of(
            "lib/rota.jar",
            "lib/rota-agent.jar",
            "lib/rota-cli.jar",
            "systemd/rota-server.service",
            "systemd/rota-agent.service",
            "config/rota.env.example",
            "config/agent.env.example",
            "completion/rota.bash",
            "monitoring/rota-dashboard.json",
            "monitoring/rota-alerts.yml",
            "monitoring/rota-alerts.test.yml")) {
      assertTrue(Files.isRegularFile(home.resolve(file)), file + " is in the archive");
    }
    assertTrue(
        Files.readString(home.resolve("completion/rota.bash")).contains("complete -F"),
        "the completion is bash's");
    assertTrue(
        Files.readString(home.resolve("systemd/rota-agent.service")).contains("KillMode=process"),
        "an agent's restart leaves its tasks running");

    // The CLI's class-data archive goes to the user's cache: here, one of the test's own.
    Map<String, String> cache = Map.of("XDG_CACHE_HOME", empty.resolve("cache").toString());
    Result version = run(List.of(rota.toString(), "--version"), cache, empty);
    assertEquals(0, version.code(), version.output());
    assertEquals(1, version.output().lines().count(), "one line, no JVM warning: " + version);
    assertTrue(
        version.output().matches("rota \\d+\\.\\d+\\.\\d+ \\(commit [0-9a-f]{7,}\\)\\R"),
        "the release and its commit: " + version);
    assertEquals(1, Files.list(empty.resolve("cache/rota")).count(), "the archive it made");
    Result again = run(List.of(rota.toString(), "--version"), cache, empty);
    assertEquals(version, again, "and the same from it");
    // A second install keeps an archive of its own, and each runs from its own again.
    Path other = empty.resolve("other-install");
    run(List.of("cp", "-a", home.toString(), other.toString()), Map.of(), empty);
    assertEquals(version, run(List.of(other + "/bin/rota", "--version"), cache, empty));
    assertEquals(version, run(List.of(rota.toString(), "--version"), cache, empty));
    assertEquals(
        2, Files.list(empty.resolve("cache/rota")).count(), "two installs, two archives kept");

    // The documentation the archive's README points to is in it.
    String readme = Files.readString(home.resolve("README.md"));
    java.util.regex.Matcher link =
        java.util.regex.Pattern.compile("\\]\\((docs/[^)#]+)").matcher(readme);
    int links = 0;
    while (link.find()) {
      links++;
      assertTrue(Files.isRegularFile(home.resolve(link.group(1))), link.group(1) + " is in it");
    }
    assertTrue(links >= 5, "the README links the docs: " + readme);

    int api = freePort();
    String server = "http://127.0.0.1:" + api;
    Map<String, String> env = new HashMap<>(cache);
    env.put("MICRONAUT_SERVER_PORT", String.valueOf(api));
    env.put("ROTA_TEMPORAL_PORT", String.valueOf(freePort()));
    env.put("ROTA_TEMPORAL_UI_PORT", String.valueOf(freePort()));
    env.put("ROTA_DATA_DIR", empty.resolve("data").toString());
    env.put("ROTA_DEV_AGENT_RUNTIMES", "process");
    env.put("ROTA_SERVER", server);
    Path devLog = empty.resolve("dev.log");
    Process dev = start(List.of(rota.toString(), "dev"), env, empty, devLog);
    try {
      Instant deadline = Instant.now().plus(PATIENCE);
      Result workers;
      do {
        assertTrue(dev.isAlive(), "dev mode runs:\n" + Files.readString(devLog));
        Thread.sleep(500);
        workers = run(List.of(rota.toString(), "worker", "list", "-o", "name"), env, empty);
      } while ((workers.code() != 0 || workers.output().lines().count() < 2)
          && Instant.now().isBefore(deadline));
      assertEquals(2, workers.output().lines().count(), "two dev agents: " + workers);
      // The two share the machine rather than each offering all of it.
      Result table = run(List.of(rota.toString(), "worker", "list"), env, empty);
      String share = "0/" + Math.max(1, Runtime.getRuntime().availableProcessors() / 2) + " ";
      assertEquals(
          2,
          table.output().lines().filter(l -> l.startsWith("dev-") && l.contains(share)).count(),
          "each offers its share of the cores (" + share + "): " + table.output());

      Result created =
          run(
              List.of(rota.toString(), "vm", "create", "hello", "--wait", "--", "sleep", "3419"),
              env,
              empty);
      assertEquals(0, created.code(), created.output());
      assertTrue(
          ProcessHandle.allProcesses()
              .anyMatch(
                  p -> p.info().commandLine().map(c -> c.endsWith("sleep 3419")).orElse(false)),
          "the VM's process runs");
      Result list = run(List.of(rota.toString(), "vm", "list"), env, empty);
      assertTrue(list.output().contains("running"), list.output());
      Result deleted = run(List.of(rota.toString(), "vm", "delete", "hello", "--wait"), env, empty);
      assertEquals(0, deleted.code(), deleted.output());
    } finally {
      dev.destroy();
      if (!dev.waitFor(60, TimeUnit.SECONDS)) {
        dev.destroyForcibly();
      }
      ProcessHandle.allProcesses()
          .filter(p -> p.info().commandLine().map(c -> c.endsWith("sleep 3419")).orElse(false))
          .forEach(ProcessHandle::destroyForcibly);
    }
    try (var files = Files.list(empty.resolve("cache/rota"))) {
      assertTrue(
          files.anyMatch(f -> f.getFileName().toString().matches("host-\\d+-\\d+\\.jsa")),
          "the host's class-data archive, made as it stopped");
    }
  }

  private record Result(int code, String output) {}

  private static Result run(List<String> command, Map<String, String> env, Path dir)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Process p = start(command, env, dir, out);
    if (!p.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not end: " + Files.readString(out));
    }
    return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  /** {@code command} started in {@code dir}, its output (both streams) going to {@code out}. */
  private static Process start(List<String> command, Map<String, String> env, Path dir, Path out)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(new ArrayList<>(command))
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    builder.environment().putAll(env);
    Process p = builder.start();
    p.getOutputStream().close();
    return p;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
