package dev.rota.store;

import java.time.Instant;

/** How values go into columns and workflow payloads. */
public final class Columns {
  private Columns() {}

  /**
   * At most {@code max} characters: what an agent or a user reports is bounded by the column it
   * lands in.
   */
  public static String truncate(String s, int max) {
    return s == null || s.length() <= max ? s : s.substring(0, max);
  }

  /** Epoch milliseconds, 0 for no time: how workflow payloads carry an optional instant. */
  public static long millis(Instant t) {
    return t == null ? 0 : t.toEpochMilli();
  }
}
