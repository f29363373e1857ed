package dev.rota.core.scheduling;

import dev.rota.core.model.WorkerHealth;

/**
 * Whether so many workers fell silent at once that the silence is taken for the controller's fault
 * (an API too busy to take heartbeats, a network cut on its side), not theirs. Then no worker goes
 * offline, and no VM is failed over, until fewer are silent: failing over most of a fleet at once
 * adds to the load that made it look dead. Kubernetes' node controller stops evicting from a zone
 * so, when most of its nodes go unready together ({@code unhealthy-zone-threshold}, 55%).
 *
 * @param silent workers whose heartbeats stopped (lost or offline by this term's verdicts)
 * @param workers every worker
 * @param thresholdPercent more than this share of the workers silent holds failover back
 */
public record Disruption(int silent, int workers, int thresholdPercent) {
  /**
   * Smaller clusters are never held: with a few workers, most of them failing together may well be
   * real, and the test that would tell is too coarse.
   */
  public static final int MIN_WORKERS = 10;

  public static boolean silent(WorkerHealth health) {
    return health == WorkerHealth.LOST || health == WorkerHealth.OFFLINE;
  }

  /** Whether failover is held back this term. */
  public boolean holding() {
    return workers >= MIN_WORKERS && silent * 100L > (long) thresholdPercent * workers;
  }

  /**
   * The verdict of a worker that would go offline this term while failover is held: lost still,
   * saying why. Its next change is left to the next term, since the deadline it would wake for has
   * passed.
   */
  public HealthVerdict hold(HealthVerdict offline) {
    return new HealthVerdict(
        WorkerHealth.LOST,
        "held lost, not offline: "
            + silent
            + " of "
            + workers
            + " workers are silent at once (more than "
            + thresholdPercent
            + "%), which is taken for the controller's fault, not theirs; their VMs are not failed "
            + "over until fewer are silent ("
            + offline.message()
            + ")",
        null,
        null);
  }
}
