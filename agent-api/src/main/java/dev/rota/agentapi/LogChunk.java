package dev.rota.agentapi;

/**
 * One read of a task's log ({@code GET /v1/tasks/{id}/logs}): its bytes, the offset that follows
 * them ({@link LogHeaders}), and whether the task may write more.
 */
public record LogChunk(byte[] bytes, long next, boolean live) {}
