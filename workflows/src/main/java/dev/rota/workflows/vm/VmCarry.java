package dev.rota.workflows.vm;

import java.util.List;

/**
 * What a VM's workflow hands its next run when it continues as new: its lifecycle as it decided it,
 * and what the store does not keep (the failures in a row that set the next delay, the restarts
 * that count toward {@code maxRestarts}, a restart already due, a move's target, when it finished).
 */
public record VmCarry(
    String status,
    String worker,
    int restartCount,
    String message,
    Integer exitCode,
    long lastTaskEventId,
    long scheduledAtMillis,
    long startedAtMillis,
    long finishedAtMillis,
    int failuresInARow,
    List<Long> restartsAfterFailure,
    long restartAtMillis,
    String movingFrom,
    String movingTo,
    long finishedSinceMillis) {}
