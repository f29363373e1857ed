package dev.rota.cli;

/**
 * {@code rota vm logs -f}: each poll brings the last 64 KiB of the output; what is new is what
 * follows the end of the previous tail. When the output grew by more than the window, the whole
 * tail is new.
 */
final class LogFollower {
  /**
   * How much of the previous tail is matched against the next: enough to be unambiguous in
   * practice.
   */
  private static final int OVERLAP = 1024;

  private String last = "";
  private boolean started;

  /** Whether a tail was read already: the next is read after a pause. */
  boolean started() {
    return started;
  }

  String next(String tail) {
    started = true;
    String fresh = fresh(last, tail == null ? "" : tail);
    last = tail == null ? "" : tail;
    return fresh;
  }

  static String fresh(String previous, String tail) {
    if (previous.isEmpty()) {
      return tail;
    }
    if (tail.startsWith(previous)) {
      return tail.substring(previous.length());
    }
    // The window slid: find where the previous tail's end now sits in the new one.
    String end = previous.substring(Math.max(0, previous.length() - OVERLAP));
    int at = tail.lastIndexOf(end);
    return at >= 0 ? tail.substring(at + end.length()) : tail;
  }
}
