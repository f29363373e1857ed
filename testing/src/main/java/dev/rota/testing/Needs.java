package dev.rota.testing;

import java.util.function.Supplier;
import org.junit.jupiter.api.Assertions;

/**
 * What a test needs of the machine beyond a JDK and Maven (PostgreSQL, the Temporal CLI, QEMU and
 * its guest, Chromium, tmux, root for a tmpfs or a network namespace), which the project's {@code
 * .ci} scripts install. Without it a test is skipped, saying why. Under {@code CI=true} it fails
 * instead: CI installed all of it first, and a run that skipped what it could not have would be
 * green and lie.
 */
public final class Needs {
  private Needs() {}

  /** Goes on when {@code had}; else skips or fails the test, saying {@code why}. */
  public static void had(boolean had, String why) {
    if (!had) {
      missing(why);
    }
  }

  /** {@link #had(boolean, String)} with a reason made only when needed. */
  public static void had(boolean had, Supplier<String> why) {
    if (!had) {
      missing(why.get());
    }
  }

  /** Skips the test, or under {@code CI=true} fails it, saying {@code why}; never returns. */
  public static <T> T missing(String why) {
    if (underCi()) {
      return Assertions.fail(
          why + " (under CI=true a test that cannot have what it needs fails, not skips)");
    }
    Needs.missing(why);
    return null;
  }

  static boolean underCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }
}
