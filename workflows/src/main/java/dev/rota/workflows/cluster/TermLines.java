package dev.rota.workflows.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines the Temporal UI shows for a term, as a person reads them: the term's activity says what
 * the term starts from ({@code term 812: 3 waiting}), the timer after it what the term did and when
 * the next comes ({@code placed 2 · moved 1 · 3 waiting — next in 5 s}). No epoch numbers.
 */
final class TermLines {
  private TermLines() {}

  /** The term's activity: its number, why it runs now, and what the last term left waiting. */
  static String starting(long term, boolean woken, TermSummary last) {
    List<String> known = new ArrayList<>();
    if (woken) {
      known.add("woken");
    }
    TermDecisions d = last == null ? null : last.decisions();
    if (d == null) {
      known.add("first look");
    } else {
      known.add(d.pending() + " waiting");
      if (last.applied() != null && last.applied().remaining() > 0) {
        known.add(last.applied().remaining() + " actions left over");
      }
    }
    return "term " + term + ": " + String.join(", ", known);
  }

  /** The timer after a term: what it did, in counts that are not zero, and the wait. */
  static String done(TermSummary term, Duration wait) {
    List<String> did = new ArrayList<>();
    TermDecisions d = term.decisions();
    if (d != null) {
      count(did, d.placed(), "placed");
      count(did, d.moved(), "moved");
      count(did, d.failures(), "failed");
      count(did, d.removals(), "orphans removed");
      count(did, d.healthChanges(), "health changes");
      if (term.applied() != null) {
        count(did, term.applied().started(), "started");
        count(did, term.applied().failed(), "actions failed");
      }
      did.add(d.pending() + " waiting");
    }
    String what =
        did.size() <= 1 && d != null && d.pending() == 0 ? "quiet" : String.join(" · ", did);
    return "term " + term.term() + ": " + what + " — next in " + readable(wait);
  }

  private static void count(List<String> into, long n, String what) {
    if (n > 0) {
      into.add(what + " " + n);
    }
  }

  /** {@code 800 ms}, {@code 5 s}, {@code 2.5 s}, {@code 10 min}, {@code 1 h 5 min}. */
  static String readable(Duration d) {
    long ms = d.toMillis();
    if (ms < 1_000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return ms % 1_000 == 0
          ? (ms / 1_000) + " s"
          : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1_000.0);
    }
    long minutes = ms / 60_000;
    if (minutes < 60) {
      long s = (ms % 60_000) / 1_000;
      return minutes + " min" + (s == 0 ? "" : " " + s + " s");
    }
    return (minutes / 60) + " h" + (minutes % 60 == 0 ? "" : " " + (minutes % 60) + " min");
  }
}
