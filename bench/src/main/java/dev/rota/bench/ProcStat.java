package dev.rota.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** What Linux's /proc says of another process: its CPU and its memory. */
final class ProcStat {
  private ProcStat() {}

  /** User and system clock ticks (1/100 s) of process {@code pid}; 0 once it is gone. */
  static long ticks(long pid) {
    try {
      String stat = file("/proc/" + pid + "/stat");
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
    } catch (IOException e) {
      return 0;
    }
  }

  /** {@link #ticks} of the process and of every process under it (PostgreSQL's backends). */
  static long ticksWithDescendants(long pid) {
    return ticks(pid)
        + ProcessHandle.of(pid).stream()
            .flatMap(ProcessHandle::descendants)
            .mapToLong(p -> ticks(p.pid()))
            .sum();
  }

  /** The most resident memory the process has had ({@code VmHWM}), in MiB; -1 if unknown. */
  static long peakRssMiB(long pid) {
    return status(pid, "VmHWM:");
  }

  /** Its resident memory now ({@code VmRSS}), in MiB; -1 if unknown. */
  static long rssMiB(long pid) {
    return status(pid, "VmRSS:");
  }

  /**
   * The memory of the process and of every process under it, each shared page counted once in
   * shares ({@code Pss}: PostgreSQL's backends share its buffers), in MiB.
   */
  static long pssMiBWithDescendants(long pid) {
    return java.util.stream.Stream.concat(
                java.util.stream.Stream.of(pid),
                ProcessHandle.of(pid).stream()
                    .flatMap(ProcessHandle::descendants)
                    .map(ProcessHandle::pid))
            .mapToLong(p -> Math.max(0, kib(p, "smaps_rollup", "Pss:")))
            .sum()
        / 1024;
  }

  private static long status(long pid, String field) {
    long kib = kib(pid, "status", field);
    return kib < 0 ? -1 : kib / 1024;
  }

  private static long kib(long pid, String file, String field) {
    try {
      for (String line : file("/proc/" + pid + "/" + file).split("\n")) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).replace("kB", "").strip());
        }
      }
    } catch (IOException e) {
      // gone
    }
    return -1;
  }

  /** A file of /proc, whole: they claim to be empty, and Files.readString may read one short. */
  static String file(String path) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
