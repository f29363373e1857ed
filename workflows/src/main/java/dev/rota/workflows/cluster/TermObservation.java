package dev.rota.workflows.cluster;

/**
 * What the observe activity saw at the start of a term.
 *
 * @param intervalMillis the configured longest wait between terms ({@code
 *     rota.scheduler.interval}); read by the activity so that a host's setting reaches the running
 *     workflow deterministically, through its history
 * @param observedAtMillis when the agents were probed; the commit trusts task lists from then on
 * @param probed agents contacted this term
 * @param answered agents that answered in time
 * @param idleIntervalMillis the longest wait when nothing changes ({@code
 *     rota.scheduler.idle-interval}); 0 in observations recorded before it existed
 */
public record TermObservation(
    long intervalMillis, long observedAtMillis, int probed, int answered, long idleIntervalMillis) {
  public TermObservation(long intervalMillis, long observedAtMillis, int probed, int answered) {
    this(intervalMillis, observedAtMillis, probed, answered, 0);
  }

  /** This term's observation with the agents {@code later} asked too, after its actions. */
  public TermObservation and(TermObservation later) {
    return new TermObservation(
        intervalMillis,
        observedAtMillis,
        probed + later.probed(),
        answered + later.answered(),
        idleIntervalMillis);
  }
}
