package dev.rota.core.scheduling;

import dev.rota.core.model.WorkerHealth;
import java.time.Instant;

/**
 * A worker's health for this term.
 *
 * @param message why, for people
 * @param flakyUntil the cool-down's end when flaky, else null
 * @param nextChange the earliest time its health could change with no new input, or null
 */
public record HealthVerdict(
    WorkerHealth health, String message, Instant flakyUntil, Instant nextChange) {}
