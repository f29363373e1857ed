package dev.rota.workflows.vm;

import dev.rota.core.lifecycle.HeardReadiness;
import dev.rota.core.lifecycle.RestartRule;
import dev.rota.core.lifecycle.VmLife;
import java.util.List;

/**
 * What a VM's workflow hands its next run when it continues as new: its lifecycle as it decided it,
 * and what the store does not keep (the failures in a row that set the next delay, the restarts
 * that count toward {@code maxRestarts}, a restart already due, a move's target, when it finished),
 * and what it heard of its readiness.
 */
public record VmCarry(
    VmLife life,
    int failuresInARow,
    List<Long> restartsAfterFailure,
    long finishedSinceMillis,
    HeardReadiness readiness) {

  static VmCarry of(
      VmLife life, RestartRule.Count count, long finishedSinceMillis, HeardReadiness readiness) {
    return new VmCarry(
        life, count.failuresInARow(), count.restartsAfterFailure(), finishedSinceMillis, readiness);
  }

  RestartRule.Count count() {
    return new RestartRule.Count(failuresInARow, restartsAfterFailure);
  }
}
