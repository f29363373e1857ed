package dev.rota.scheduler;

/**
 * A wake-up found no scheduler's workflow to wake (Temporal lost it, or it was terminated): whoever
 * keeps the workflows running starts it again now rather than at its next look.
 *
 * @param why what found it missing
 */
public record SchedulerMissing(String why) {}
