package dev.rota.lifecycle;

import dev.rota.model.VmStatus;

/**
 * Where a VM's life stands, as its workflow keeps it: its status and worker, the generation of its
 * task ({@code restartCount}), what its last task did, the last task event applied, and while it
 * moves, the worker its old copy runs on and the one its new copy is placed on. Times are epoch
 * milliseconds, 0 for none; {@code restartAtMillis} is when a scheduled restart is due.
 */
public record VmLife(
    VmStatus status,
    String worker,
    int restartCount,
    String message,
    Integer exitCode,
    long lastTaskEventId,
    long scheduledAtMillis,
    long startedAtMillis,
    long finishedAtMillis,
    String movingFrom,
    String movingTo,
    long restartAtMillis) {}
