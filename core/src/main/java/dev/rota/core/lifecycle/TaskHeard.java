package dev.rota.core.lifecycle;

import dev.rota.core.model.TaskEventType;

/**
 * A task event as a VM's workflow hears it: its id (events are applied in id order), the task's
 * generation, the worker, and for an end the exit code and when the task had started.
 */
public record TaskHeard(
    long id,
    TaskEventType type,
    int generation,
    String worker,
    String message,
    Integer exitCode,
    long atMillis,
    long startedAtMillis) {}
