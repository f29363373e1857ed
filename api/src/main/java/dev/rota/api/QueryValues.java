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
}
