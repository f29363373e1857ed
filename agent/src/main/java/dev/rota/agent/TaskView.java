package dev.rota.agent;

/** One task as {@code GET /v1/tasks} lists it (API.md, Agent). */
public record TaskView(
    String id, String vm, String state, Integer exitCode, String startedAt, String finishedAt, String message) {}
