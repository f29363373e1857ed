package dev.rota.agent.machine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Short-lived helper programs (qemu-img, mkfs.vfat): run to their end, their complaint made one
 * line.
 */
public final class Tools {
  private static final long DEADLINE_SECONDS = 120;

  private Tools() {}

  /** A complaint made one line, as a task's or a worker's message shows it. */
  public static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }

  /**
   * Runs {@code argv}; a failure is an {@link IOException} with {@code missing} when it is not
   * installed.
   */
  public static void run(List<String> argv, String missing) throws IOException {
    run(argv, missing, "");
  }

  /** {@link #run(List, String)} with {@code input} on its stdin; returns what it printed. */
  public static String run(List<String> argv, String missing, String input) throws IOException {
    Process p;
    try {
      p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException(missing);
    }
    try {
      try (var in = p.getOutputStream()) {
        in.write(input.getBytes(StandardCharsets.UTF_8));
      }
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(argv.get(0) + " did not finish within " + DEADLINE_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        String said = new String(out, StandardCharsets.UTF_8).strip();
        throw new IOException(
            argv.get(0)
                + " failed: "
                + (said.isEmpty() ? "exit code " + p.exitValue() : firstLine(said)));
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(argv.get(0) + " was interrupted");
    }
  }
}
