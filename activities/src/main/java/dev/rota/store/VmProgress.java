package dev.rota.store;

import io.micronaut.core.annotation.Introspected;

/**
 * How far a VM's row has got: its submission, and the newest task event it shows with the status that
 * event left.
 */
@Introspected
public record VmProgress(long seq, long taskEventId, String status) {}
