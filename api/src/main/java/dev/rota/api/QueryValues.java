package dev.rota.api;

import dev.rota.api.problem.Problems;

/**
 * Query parameters read from their text rather than bound, because binding takes {@code limit=} for
 * no value at all and {@code watch=AAA} for false: what the document does not admit is a 400.
 */
public final class QueryValues {
  private QueryValues() {}

  /**
   * A whole number from {@code min} to {@code max}, written in digits only; a 400 naming {@code
   * field} otherwise.
   */
  public static int wholeNumber(String field, String text, int min, int max) {
    if (text.matches("^[0-9]{1,9}$")) {
      int n = Integer.parseInt(text);
      if (n >= min && n <= max) {
        return n;
      }
    }
    throw Problems.badRequest(
        field, "must be a whole number from " + min + " to " + max + ", got \"" + text + "\"");
  }

  /** A whole number of up to 18 digits: an offset into a log. */
  public static long offset(String field, String text) {
    if (text.matches("^[0-9]{1,18}$")) {
      return Long.parseLong(text);
    }
    throw Problems.badRequest(
        field, "must be a whole number of up to 18 digits, got \"" + text + "\"");
  }

  /** {@code true} or {@code false}, as written. */
  public static boolean flag(String field, String text) {
    return switch (text) {
      case "true" -> true;
      case "false" -> false;
      default -> throw Problems.badRequest(field, "must be true or false, got \"" + text + "\"");
    };
  }

  /** An RFC 3339 date-time. */
  public static java.time.Instant time(String field, String text) {
    return Rfc3339.parse(text)
        .orElseThrow(
            () ->
                Problems.badRequest(
                    field,
                    "must be an RFC 3339 date-time such as 2026-11-23T18:00:00Z, got \""
                        + text
                        + "\""));
  }
}
