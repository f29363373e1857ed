package dev.rota.workflows.cluster;

import java.time.Duration;

/**
 * How long the scheduler waits after a term before the next: the interval, stretched while nothing
 * changes up to the idle interval, and shortened for what cannot wait (tasks just started, a
 * worker's health deadline, actions left over). One rule for the workflow's timer after a term that
 * changed something and for the next attempt a quiet term asks of Temporal ({@link QuietTerms}).
 */
public final class TermPace {
  private TermPace() {}

  /** How soon a term that started tasks is followed by one that sees them run. */
  static final Duration OBSERVE_STARTS_AFTER = Duration.ofMillis(300);

  /** A deadline closer than this is waited for this long: health is judged in whole terms. */
  static final Duration MIN_WAIT = Duration.ofMillis(200);

  /** Actions an agent did not take are tried again this soon, not a whole interval later. */
  static final Duration RETRY_ACTIONS_AFTER = Duration.ofSeconds(1);

  /**
   * How many terms in a row that lost races (their conditional writes met newer state: a user's
   * action, an agent's report, another host) are each followed by another at once; after that, the
   * interval, so that a hot spot that keeps changing cannot keep the scheduler spinning.
   */
  static final int REPLANS_AT_ONCE = 3;

  /**
   * The wait after a term.
   *
   * @param quietTerms how many terms in a row, this one included, changed nothing
   * @param racesLostInARow how many terms in a row, this one included, lost races
   * @param nowMillis the time the term ended
   */
  public static Duration after(
      TermObservation seen,
      int quietTerms,
      int racesLostInARow,
      TermDecisions decided,
      ApplyResult applied,
      long nowMillis) {
    Duration wait = untilNextTerm(stretched(seen, quietTerms), decided, applied, nowMillis);
    if (decided.lostRaces() > 0 && racesLostInARow <= REPLANS_AT_ONCE) {
      // What it lost is planned again from fresh state at once, not an interval later.
      wait = min(wait, MIN_WAIT);
    }
    return wait;
  }

  /** The interval, doubled for each quiet term up to the idle interval. */
  static Duration stretched(TermObservation seen, int quietTerms) {
    Duration stretched = Duration.ofMillis(seen.intervalMillis());
    long idle = seen.idleIntervalMillis();
    for (int i = 0; i < quietTerms && idle > 0 && stretched.toMillis() < idle; i++) {
      stretched = min(stretched.multipliedBy(2), Duration.ofMillis(idle));
    }
    return stretched;
  }

  /**
   * The interval, or less: until the nearest health deadline (a worker turning lost or offline is
   * acted on when it happens, not up to an interval later), or soon when actions are left over.
   */
  static Duration untilNextTerm(
      Duration interval, TermDecisions decided, ApplyResult applied, long nowMillis) {
    Duration wait = interval;
    if (applied.started() > 0) {
      // Tasks were just started: see them running (or failing) soon, not an interval later.
      wait = min(wait, OBSERVE_STARTS_AFTER);
    }
    if (decided.nextDeadlineMillis() > 0) {
      Duration toDeadline = Duration.ofMillis(decided.nextDeadlineMillis() - nowMillis);
      wait = min(wait, max(toDeadline, MIN_WAIT));
    }
    if (applied.remaining() > 0) {
      wait = min(wait, RETRY_ACTIONS_AFTER);
    }
    return wait;
  }

  static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
