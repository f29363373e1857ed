package dev.rota.workflows.cluster;

/** What one observe-plan-commit-record activity saw and decided. */
public record TermOutcome(TermObservation observation, TermDecisions decisions) {
  /** Nothing changed and nothing is left to do: the scheduler may wait longer before the next term. */
  public boolean quiet() {
    return decisions.placed() == 0 && decisions.healthChanges() == 0 && decisions.failures() == 0
        && decisions.removals() == 0 && decisions.actions() == 0 && decisions.lostRaces() == 0;
  }
}
