package dev.rota.workflows.cluster;

/**
 * A term as the cluster workflow starts it.
 *
 * @param term the term's number; the activity takes the next after the last it recorded when that
 *     is higher (quiet terms run as its attempts, unseen by the workflow)
 * @param woken whether a wake-up brought it early
 * @param quietTerms how many terms in a row before it changed nothing
 * @param restsWhenQuiet whether a term that changes nothing ends its attempt by asking Temporal for
 *     the next attempt after the wait ({@link QuietTerms}), rather than returning; false from
 *     workflows recorded before quiet terms ran as attempts
 */
public record TermStart(
    long term, long startedAtMillis, boolean woken, int quietTerms, boolean restsWhenQuiet) {
  public TermStart(long term, long startedAtMillis, boolean woken) {
    this(term, startedAtMillis, woken, 0, false);
  }
}
