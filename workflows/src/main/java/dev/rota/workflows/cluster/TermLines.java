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

  /**
   * The term's activity: its number, why it runs now, and what the last term left waiting; or, when
   * no timer told what the last term did ({@code lastUntold}: a wake-up was waiting, so the next
   * term came at once), that. A term number of 0 is not known yet (the quiet terms before it ran
   * unseen): the activity's result and the timer after it tell it.
   */
  static String starting(long term, boolean woken, TermSummary last, boolean lastUntold) {
    List<String> known = new ArrayList<>();
    if (woken) {
      known.add("woken");
    }
    TermDecisions d = last == null ? null : last.decisions();
    if (d == null) {
      known.add("first look");
    } else if (lastUntold) {
      known.add("after term " + last.term() + ": " + deeds(last));
    } else {
      known.add(d.pending() + " waiting");
      if (last.applied() != null && last.applied().remaining() > 0) {
        known.add(last.applied().remaining() + " actions left over");
      }
    }
    return (term > 0 ? "term " + term : "next term") + ": " + String.join(", ", known);
  }

  /** The timer after a term: what it did, in counts that are not zero, and the wait. */
  static String done(TermSummary term, Duration wait) {
    return "term "
        + term.term()
        + ": "
        + deeds(term)
        + " — next in "
        + dev.rota.workflows.Readable.duration(wait);
  }

  /** What a term did, in counts that are not zero, and what it left waiting; or quiet. */
  private static String deeds(TermSummary term) {
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
        count(did, term.applied().remaining(), "actions left over");
      }
      did.add(d.pending() + " waiting");
    }
    return did.size() <= 1 && d != null && d.pending() == 0 ? "quiet" : String.join(" · ", did);
  }

  private static void count(List<String> into, long n, String what) {
    if (n > 0) {
      into.add(what + " " + n);
    }
  }
}
