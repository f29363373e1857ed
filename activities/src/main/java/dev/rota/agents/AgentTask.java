package dev.rota.agents;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;

/** A task as an agent's {@code GET /v1/tasks} lists it (API.md, Agent). */
@Serdeable
public record AgentTask(
    String id,
    @Nullable String vm,
    String state,
    @Nullable Integer exitCode,
    @Nullable String startedAt,
    @Nullable String finishedAt,
    @Nullable String message) {}
