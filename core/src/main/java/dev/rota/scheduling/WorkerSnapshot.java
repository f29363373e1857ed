package dev.rota.scheduling;

/**
 * A worker at the start of a term: what it offers, and what is known of its liveness.
 *
 * @param worker its registration, with the health the last term gave it
 * @param healthMessage the message stored with that health
 */
public record WorkerSnapshot(Candidate worker, WorkerProbeState probe, String healthMessage) {
  public String name() {
    return worker.name();
  }
}
