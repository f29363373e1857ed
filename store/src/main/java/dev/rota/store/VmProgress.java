package dev.rota.store;

import io.micronaut.core.annotation.Introspected;

/**
 * How far a VM's row has got: its submission, the newest task event it shows with the status that
 * event left, and whether its workflow has yet to be started ({@code workflow_starts}).
 */
@Introspected
public record VmProgress(long seq, long taskEventId, String status, boolean workflowOwed) {}
