package dev.rota.workflows.cluster;

/**
 * What one term activity saw, decided and, when it also applies its actions, carried out.
 *
 * @param applied what the apply step did; null from an activity that leaves applying to another
 * @param recorded the term as the activity recorded it, its number included; null in results
 *     recorded before the activity told it
 * @param quietTermsRest whether the host's Temporal lets a quiet term rest ({@link QuietTerms}):
 *     false on the in-process test server, which refuses a cancel that races a completion
 */
public record TermOutcome(
    TermObservation observation,
    TermDecisions decisions,
    ApplyResult applied,
    TermSummary recorded,
    boolean quietTermsRest) {
  public TermOutcome(TermObservation observation, TermDecisions decisions) {
    this(observation, decisions, null, null, false);
  }

  public TermOutcome(TermObservation observation, TermDecisions decisions, ApplyResult applied) {
    this(observation, decisions, applied, null, false);
  }

  /**
   * Nothing changed and nothing is left to do: the scheduler may wait longer before the next term.
   */
  public boolean quiet() {
    return decisions.placed() == 0
        && decisions.moved() == 0
        && decisions.healthChanges() == 0
        && decisions.failures() == 0
        && decisions.removals() == 0
        && decisions.actions() == 0
        && decisions.lostRaces() == 0;
  }
}
