package dev.rota.workflows.cluster;

/**
 * A term as the cluster workflow starts it.
 *
 * @param woken whether a wake-up brought it early
 */
public record TermStart(long term, long startedAtMillis, boolean woken) {}
