package dev.rota.testing;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What one of the project's {@code .ci} scripts printed, run as the tests run them: its stdout's
 * lines, and the last line it said on stderr (why, when it failed).
 *
 * @param exit its exit status; -1 when it could not be run or took over 10 minutes
 */
public record CiScript(int exit, List<String> lines, String said) {

  /** Whether it succeeded and answered. */
  public boolean ok() {
    return exit == 0 && !lines.isEmpty();
  }

  /** The answer on success; on failure, why. */
  public String lastLine() {
    return ok() || said.isBlank()
        ? (lines.isEmpty() ? "no output" : lines.get(lines.size() - 1))
        : said;
  }

  /**
   * The answer; when there is none, the calling test is skipped (or fails under {@code CI=true},
   * {@link Needs}), saying that {@code what} could not be had and why.
   */
  public String needed(String what) {
    Needs.had(ok(), () -> "no " + what + " could be had (" + lastLine() + ")");
    return lastLine();
  }

  /** The project's root: the first folder up from here that holds {@code .ci/run}. */
  public static Path root() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve(".ci/run"))) {
        return p;
      }
    }
    throw new IllegalStateException("no .ci/run above " + Path.of("").toAbsolutePath());
  }

  /**
   * Runs {@code script} (a path from the project's root, {@code .ci/qemu}) with {@code args}. An
   * install, a start or a guest's build may install packages, and tests run in several JVMs at
   * once: those calls take a file lock first, so that two downloads or builds of one tool never
   * race.
   */
  public static CiScript run(String script, String... args) {
    if (args.length > 0 && List.of("install", "start", "guest").contains(args[0])) {
      // A JVM holds a file lock once: its own threads take turns on the class first.
      synchronized (CiScript.class) {
        return locked(script, args);
      }
    }
    return unlocked(script, args);
  }

  private static CiScript locked(String script, String... args) {
    Path root = root();
    try {
      Files.createDirectories(root.resolve(".tools"));
      try (FileChannel lock =
              FileChannel.open(
                  root.resolve(".tools/install.lock"),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE);
          FileLock held = lock.lock()) {
        return unlocked(script, args);
      }
    } catch (IOException e) {
      return new CiScript(-1, List.of(), "cannot lock .tools/install.lock: " + e);
    }
  }

  private static CiScript unlocked(String script, String... args) {
    Path root = root();
    List<String> command = new ArrayList<>(List.of("bash", root.resolve(script).toString()));
    command.addAll(List.of(args));
    try {
      Path stderr = Files.createTempFile("rota-ci-script", ".err");
      try {
        Process p =
            new ProcessBuilder(command)
                .directory(root.toFile())
                .redirectError(stderr.toFile())
                .start();
        List<String> lines =
            new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
          p.destroyForcibly();
          return new CiScript(-1, List.of(), script + " took over 10 minutes");
        }
        List<String> said = Files.readAllLines(stderr);
        return new CiScript(p.exitValue(), lines, said.isEmpty() ? "" : said.get(said.size() - 1));
      } finally {
        Files.deleteIfExists(stderr);
      }
    } catch (IOException e) {
      return new CiScript(-1, List.of(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new CiScript(-1, List.of(), "interrupted");
    }
  }
}
