package dev.rota.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM's heap in use right after a full collection, through {@code jcmd}: what it holds, without
 * the garbage its collector has yet to take or the heap it keeps committed. Equal after every burst
 * of one size, the host leaks nothing a burst leaves behind.
 */
final class LiveHeap {
  private static final Pattern USED = Pattern.compile("total \\d+K, used (\\d+)K");

  private LiveHeap() {}

  /** The heap {@code pid} uses after a full collection, in MiB; -1 if jcmd did not say. */
  static long afterFullGcMiB(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    Matcher m = USED.matcher(jcmd(pid, "GC.heap_info"));
    return m.find() ? Long.parseLong(m.group(1)) / 1024 : -1;
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), String.valueOf(pid), command)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }
}
