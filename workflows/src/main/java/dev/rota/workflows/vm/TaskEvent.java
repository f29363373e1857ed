package dev.rota.workflows.vm;

/**
 * What the scheduler observed of one of a VM's tasks, sent through its outbox. Delivered at least
 * once; the workflow applies an event only if it is about the VM's current task and newer than the
 * last one it applied, so a repeat, or an event overtaken by a later one, changes nothing.
 *
 * @param id the outbox row's id: increasing, in the order the observations were committed
 * @param type a {@link dev.rota.core.model.TaskEventType}'s wire name
 * @param exitCode the task's exit code when it exited, else null
 * @param atMillis when it was observed
 * @param startedAtMillis when the task was seen running, 0 if it was not
 * @param recorded whether the VM's row already showed this event when it was sent (the agent's
 *     report writes a start at once), so that the workflow's record of it would change nothing
 */
public record TaskEvent(
    long id,
    String taskId,
    String worker,
    String type,
    Integer exitCode,
    String message,
    long atMillis,
    long startedAtMillis,
    boolean recorded) {}
