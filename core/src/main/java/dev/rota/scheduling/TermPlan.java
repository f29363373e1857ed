package dev.rota.scheduling;

import java.time.Instant;
import java.util.List;

/**
 * Everything one term decided.
 *
 * @param healthChanges workers whose health, message or cool-down changed
 * @param nextDeadline the earliest time a worker's health could change with no new input
 */
public record TermPlan(
    List<HealthChange> healthChanges, PlacementPlan placement, Reconciliation reconciliation, Instant nextDeadline) {

  public record HealthChange(String worker, HealthVerdict verdict) {}
}
