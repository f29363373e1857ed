package dev.rota.workflows.vmset;

import io.temporal.activity.ActivityInterface;

@ActivityInterface
public interface VmSetActivities {
  record SetRef(String set) {}

  /**
   * One pass: submits the wanted replicas that do not exist (ordinals below {@code replicas}), asks
   * the ones above to delete themselves (the highest go first on a scale-down, as all of them go),
   * and, once a deleted set has no replicas left, removes its row. Idempotent: a pass repeated
   * after a crash finds what the last one did.
   */
  SetProgress reconcile(SetRef set);
}
