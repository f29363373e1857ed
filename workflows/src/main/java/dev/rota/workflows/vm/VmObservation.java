package dev.rota.workflows.vm;

/**
 * What the scheduler committed about a VM: its status, its worker, and why.
 *
 * @param exitCode the task's exit code when it ended, else null
 */
public record VmObservation(String status, String worker, String message, Integer exitCode) {}
