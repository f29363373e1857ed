package dev.rota.workflows.vm;

/**
 * A VM's lifecycle as its workflow decided it, for the read model the API lists from. Only the VM's
 * workflow writes these fields.
 *
 * @param taskEventId the last task event applied, so that a workflow resumed from the store applies
 *     none twice
 * @param scheduledAtMillis when its current task was placed, 0 if not
 * @param startedAtMillis when its current task was seen running, 0 if not
 * @param finishedAtMillis when its last task ended, 0 if not
 * @param submission the submission its workflow runs for, as {@link VmActivities} says
 */
public record VmLifecycle(
    String vm,
    int restartCount,
    String status,
    String worker,
    String message,
    Integer exitCode,
    long taskEventId,
    long scheduledAtMillis,
    long startedAtMillis,
    long finishedAtMillis,
    long submission) {}
