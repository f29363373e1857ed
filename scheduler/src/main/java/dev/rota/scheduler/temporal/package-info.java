/**
 * Who talks to Temporal: {@link dev.rota.scheduler.temporal.WorkflowStubs}, the host's one holder
 * of the Temporal client, and {@link dev.rota.scheduler.temporal.TemporalDeadlines}, which bounds a
 * call. The scheduler's signals ({@code SchedulerWaker}, {@code VmNotifier}) and control's gateway
 * ({@code ControlWorkflows}) ask them.
 */
package dev.rota.scheduler.temporal;
