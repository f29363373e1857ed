package dev.rota.core.scheduling;

import java.time.Instant;

/**
 * A worker at the start of a term: what it offers, and what is known of its liveness.
 *
 * @param worker its registration, with the health the last term gave it
 * @param healthMessage the message stored with that health
 * @param drainDeadline while it is being drained, when what is still on it is stopped; else null
 */
public record WorkerSnapshot(
    Candidate worker, WorkerProbeState probe, String healthMessage, Instant drainDeadline) {
  public WorkerSnapshot(Candidate worker, WorkerProbeState probe, String healthMessage) {
    this(worker, probe, healthMessage, null);
  }

  public String name() {
    return worker.name();
  }
}
