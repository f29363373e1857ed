package dev.rota.core.scheduling;

import dev.rota.core.model.WorkerHealth;
import java.time.Instant;

/**
 * What is known about one worker's liveness at the start of a term.
 *
 * @param health the health the last term gave it
 * @param lastSeen its last heartbeat (its registration, before any)
 * @param lastProbeAt when its agent was last probed, null if never
 * @param lastProbeOk whether that probe answered
 * @param probeFailures failed probes in a row
 * @param lastProbeError what the last failed probe said
 * @param flakyUntil the end of its flaky cool-down, null if none
 * @param taskFailures tasks that failed on it (its agent said so, or they vanished) within the
 *     task-failure window and since its last cool-down ended
 */
public record WorkerProbeState(
    String name,
    WorkerHealth health,
    Instant lastSeen,
    Instant lastProbeAt,
    boolean lastProbeOk,
    int probeFailures,
    String lastProbeError,
    Instant flakyUntil,
    int taskFailures) {

  public WorkerProbeState(
      String name,
      WorkerHealth health,
      Instant lastSeen,
      Instant lastProbeAt,
      boolean lastProbeOk,
      int probeFailures,
      String lastProbeError,
      Instant flakyUntil) {
    this(
        name,
        health,
        lastSeen,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil,
        0);
  }
}
