package dev.rota.workflows;

import java.time.Duration;
import java.util.Locale;

/**
 * Waits and sizes as the Temporal UI's summaries say them to a person, never in epoch numbers or
 * raw byte counts.
 */
public final class Readable {
  private Readable() {}

  /**
   * {@code 800 ms}, {@code 2.5 s}, {@code 15 s}, {@code 10 min}, {@code 1 h 5 min}: tenths of a
   * second below 10 s, whole seconds above (a timer set 14.7 s into a 15 s delay says 15 s).
   */
  public static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms < 1_000) {
      return ms + " ms";
    }
    if (ms < 10_000) {
      return ms % 1_000 == 0
          ? (ms / 1_000) + " s"
          : String.format(Locale.ROOT, "%.1f s", ms / 1_000.0);
    }
    ms = Math.round(ms / 1_000.0) * 1_000;
    if (ms < 60_000) {
      return (ms / 1_000) + " s";
    }
    long minutes = ms / 60_000;
    if (minutes < 60) {
      long s = (ms % 60_000) / 1_000;
      return minutes + " min" + (s == 0 ? "" : " " + s + " s");
    }
    return (minutes / 60) + " h" + (minutes % 60 == 0 ? "" : " " + (minutes % 60) + " min");
  }

  /** {@code 512 B}, {@code 3.4 KiB}, {@code 21.0 MiB}, {@code 1.5 GiB}. */
  public static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
