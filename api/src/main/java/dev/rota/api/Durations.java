package dev.rota.api;

import dev.rota.api.problem.Problems;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as the API takes and shows them, one syntax everywhere: {@code 90s}, {@code 10m},
 * {@code 1h30m}, {@code 7d} (days, hours, minutes and seconds, largest first, each at most once).
 * The document's pattern is exactly what is taken: the first unit begins with a digit other than
 * zero, so a duration is at least a second, and the digits per unit are bounded, so any duration
 * written fits in a second count (at most 9999d 99999h 999999m 9999999s, some 41 years).
 */
public final class Durations {
  private static final String D = "[1-9][0-9]{0,3}d";
  private static final String H = "[0-9]{1,5}h";
  private static final String M = "[0-9]{1,6}m";
  private static final String S = "[0-9]{1,7}s";

  /** A duration of a second or more. */
  public static final String PATTERN =
      "^("
          + D
          + "("
          + H
          + ")?("
          + M
          + ")?("
          + S
          + ")?|[1-9][0-9]{0,4}h("
          + M
          + ")?("
          + S
          + ")?|[1-9][0-9]{0,5}m("
          + S
          + ")?|[1-9][0-9]{0,6}s)$";

  /** A duration, or none at all ({@code 0s}). */
  public static final String PATTERN_OR_ZERO = "^0s$|" + PATTERN;

  public static final String MESSAGE = "must be a duration such as 90s, 10m, 1h30m or 7d";

  private static final Pattern PARTS =
      Pattern.compile("^(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$");

  private Durations() {}

  /** The seconds {@code text} says; a 400 naming {@code field} when it is not a duration. */
  public static int seconds(String field, String text, boolean zeroAllowed) {
    if (!text.matches(zeroAllowed ? PATTERN_OR_ZERO : PATTERN)) {
      throw Problems.badRequest(
          field, (zeroAllowed ? MESSAGE + ", or 0s" : MESSAGE) + "; got \"" + text + "\"");
    }
    return text.equals("0s") ? 0 : Math.toIntExact(parse(text).orElseThrow().toSeconds());
  }

  /**
   * A duration of a second or more as written here; empty for anything else (a setting's check).
   */
  public static java.util.Optional<java.time.Duration> parse(String text) {
    if (!text.matches(PATTERN)) {
      return java.util.Optional.empty();
    }
    Matcher m = PARTS.matcher(text);
    m.matches();
    return java.util.Optional.of(
        java.time.Duration.ofSeconds(
            part(m, 1) * 86_400 + part(m, 2) * 3_600 + part(m, 3) * 60 + part(m, 4)));
  }

  /** {@code seconds} as the API shows it: {@code 1h30m}, {@code 45s}, {@code 0s}; null for null. */
  public static String of(Integer seconds) {
    return seconds == null ? null : dev.rota.core.model.WrittenDuration.of(seconds);
  }

  private static long part(Matcher m, int group) {
    return m.group(group) == null ? 0 : Long.parseLong(m.group(group));
  }
}
