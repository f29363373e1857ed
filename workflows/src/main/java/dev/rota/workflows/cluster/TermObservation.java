package dev.rota.workflows.cluster;

/**
 * What the observe activity saw at the start of a term.
 *
 * @param intervalMillis the configured longest wait between terms ({@code rota.scheduler.interval});
 *     read by the activity so that a host's setting reaches the running workflow deterministically,
 *     through its history
 */
public record TermObservation(long intervalMillis) {}
