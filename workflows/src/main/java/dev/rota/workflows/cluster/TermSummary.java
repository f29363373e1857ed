package dev.rota.workflows.cluster;

/**
 * One finished term as the API and the Temporal UI show it.
 *
 * @param term the term's number, counted across continue-as-new
 * @param startedAtMillis workflow time at the start of the term, epoch milliseconds
 * @param durationMillis workflow time the term took
 * @param woken whether the term ran early because of a wake-up signal
 * @param decisions what the term decided
 * @param applied what the term carried out
 */
public record TermSummary(
    long term,
    long startedAtMillis,
    long durationMillis,
    boolean woken,
    TermDecisions decisions,
    ApplyResult applied) {}
