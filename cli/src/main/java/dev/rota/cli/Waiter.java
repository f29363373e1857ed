package dev.rota.cli;

import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * {@code --wait}: polls until what was asked is done, keeping one live progress line on stderr (on
 * a terminal it is rewritten in place; otherwise each change is a line of its own, for logs).
 */
final class Waiter {
  private static final long POLL_MILLIS = 500;

  /**
   * One look at the state: done, failed for good (saying how: {@code failed}), or still on its way,
   * with what to show.
   */
  record Look(boolean done, boolean failed, String progress, String failure) {
    static Look done(String progress) {
      return new Look(true, false, progress, null);
    }

    static Look failed(String progress) {
      return new Look(false, true, progress, "failed");
    }

    /** It will not get there as things stand: no use waiting. */
    static Look unreachable(String failure, String progress) {
      return new Look(false, true, progress, failure);
    }

    static Look waiting(String progress) {
      return new Look(false, false, progress, null);
    }
  }

  private final PrintWriter err;
  private final Clock clock;
  private final RotaCli.Pause pause;
  private final boolean terminal;
  private final Duration timeout;

  Waiter(PrintWriter err, Clock clock, RotaCli.Pause pause, boolean terminal, Duration timeout) {
    this.err = err;
    this.clock = clock;
    this.pause = pause;
    this.terminal = terminal;
    this.timeout = timeout;
  }

  /**
   * Until {@code look} says done; a failure or the timeout ends the command with their exit codes.
   */
  void until(String what, Supplier<Look> look) {
    Instant start = clock.instant();
    Instant deadline = start.plus(timeout);
    String shown = null;
    while (true) {
      Look now = look.get();
      long seconds = Duration.between(start, clock.instant()).toSeconds();
      String line = what + ": " + now.progress();
      if (terminal) {
        err.print("\r\033[2K" + line + " (" + seconds + "s)");
      } else if (!line.equals(shown)) {
        err.println(line);
      }
      err.flush();
      shown = line;
      if (now.done() || now.failed()) {
        if (terminal) {
          err.println();
        }
        if (now.failed()) {
          throw new CliException(
              ExitCodes.WAIT_FAILED, what + " " + now.failure() + ": " + now.progress());
        }
        return;
      }
      if (!clock.instant().isBefore(deadline)) {
        if (terminal) {
          err.println();
        }
        throw new CliException(
            ExitCodes.TIMED_OUT,
            what + ": not done after " + timeout.toSeconds() + "s (still " + now.progress() + ")");
      }
      try {
        pause.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException(ExitCodes.FAILED, "interrupted");
      }
    }
  }

  /** {@code 30s}, {@code 5m}, {@code 1h}, or ISO-8601 ({@code PT5M}). */
  static Duration parse(String text) {
    return parse("--timeout", text);
  }

  /**
   * {@code d} as the API writes durations: {@code 1d2h}, {@code 90m} as {@code 1h30m}, {@code 0s}.
   */
  static String inApi(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    String text =
        (d.toDaysPart() > 0 ? d.toDaysPart() + "d" : "")
            + (d.toHoursPart() > 0 ? d.toHoursPart() + "h" : "")
            + (d.toMinutesPart() > 0 ? d.toMinutesPart() + "m" : "")
            + (d.toSecondsPart() > 0 ? d.toSecondsPart() + "s" : "");
    return text.isEmpty() ? "0s" : text;
  }

  /** A duration as a user writes one for {@code option}: 30s, 5m, 1h, or ISO-8601's PT90S. */
  static Duration parse(String option, String text) {
    try {
      if (text.matches("\\d+[smh]")) {
        long n = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (text.charAt(text.length() - 1)) {
          case 's' -> Duration.ofSeconds(n);
          case 'm' -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        };
      }
      return Duration.parse(text);
    } catch (RuntimeException e) {
      throw new CliException(
          ExitCodes.USAGE, option + " " + text + " is not a duration such as 30s, 5m or 1h");
    }
  }
}
