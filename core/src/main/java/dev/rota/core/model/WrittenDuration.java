package dev.rota.core.model;

/**
 * A duration as a user writes it to Rota and reads it back: {@code 90s}, {@code 10m}, {@code
 * 1h30m}, {@code 7d}, largest unit first, so that what a message says matches what was asked.
 */
public final class WrittenDuration {
  private WrittenDuration() {}

  /** {@code 1h30m}, {@code 45s}, {@code 0s}. */
  public static String of(long seconds) {
    if (seconds <= 0) {
      return "0s";
    }
    StringBuilder text = new StringBuilder();
    long left = seconds;
    for (long[] unit : new long[][] {{86_400, 'd'}, {3_600, 'h'}, {60, 'm'}, {1, 's'}}) {
      if (left >= unit[0]) {
        text.append(left / unit[0]).append((char) unit[1]);
        left %= unit[0];
      }
    }
    return text.toString();
  }
}
