package dev.rota.scheduling;

import java.time.Instant;
import java.util.List;

/**
 * Everything one term decided.
 *
 * @param healthChanges workers whose health, message or cool-down changed
 * @param moves replicas to move, their new copy placed now and the old one removed once it runs
 * @param nextDeadline the earliest time a worker's health could change with no new input
 */
public record TermPlan(
    List<HealthChange> healthChanges, PlacementPlan placement, Reconciliation reconciliation, List<Move> moves,
    Instant nextDeadline) {

  public record HealthChange(String worker, HealthVerdict verdict) {}
}
