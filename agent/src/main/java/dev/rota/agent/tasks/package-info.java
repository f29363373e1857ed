/**
 * The tasks the agent runs: the table of them by id (one task per id, whatever the order of starts
 * and removals), each task's record on disk, its supervisor and logs, readiness checks, and the
 * {@link dev.rota.agent.tasks.TaskRuntime} contract every runtime fulfils.
 */
package dev.rota.agent.tasks;
