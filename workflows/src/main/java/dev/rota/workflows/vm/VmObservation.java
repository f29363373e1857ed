package dev.rota.workflows.vm;

/**
 * What the scheduler committed about a VM: its status, its worker, and why.
 *
 * @param exitCode the task's exit code when it ended, else null
 * @param restartCount the generation the observation is about; an older one is ignored
 * @param startedAtMillis when the task was seen running, 0 if not
 * @param finishedAtMillis when it ended, failed or vanished, 0 if not
 */
public record VmObservation(
    String status, String worker, String message, Integer exitCode, int restartCount, long startedAtMillis, long finishedAtMillis) {}
