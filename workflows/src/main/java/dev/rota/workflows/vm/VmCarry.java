package dev.rota.workflows.vm;

import dev.rota.lifecycle.HeardReadiness;
import dev.rota.lifecycle.RestartRule;
import dev.rota.lifecycle.VmLife;
import dev.rota.model.VmStatus;
import dev.rota.model.WireName;
import java.util.List;

/**
 * What a VM's workflow hands its next run when it continues as new: its lifecycle as it decided it,
 * and what the store does not keep (the failures in a row that set the next delay, the restarts
 * that count toward {@code maxRestarts}, a restart already due, a move's target, when it finished),
 * and what it heard of its readiness.
 */
public record VmCarry(
    String status,
    String worker,
    int restartCount,
    String message,
    Integer exitCode,
    long lastTaskEventId,
    long scheduledAtMillis,
    long startedAtMillis,
    long finishedAtMillis,
    int failuresInARow,
    List<Long> restartsAfterFailure,
    long restartAtMillis,
    String movingFrom,
    String movingTo,
    long finishedSinceMillis,
    HeardReadiness readiness) {

  static VmCarry of(
      VmLife life, RestartRule.Count count, long finishedSinceMillis, HeardReadiness readiness) {
    return new VmCarry(
        life.status().wireName(),
        life.worker(),
        life.restartCount(),
        life.message(),
        life.exitCode(),
        life.lastTaskEventId(),
        life.scheduledAtMillis(),
        life.startedAtMillis(),
        life.finishedAtMillis(),
        count.failuresInARow(),
        count.restartsAfterFailure(),
        life.restartAtMillis(),
        life.movingFrom(),
        life.movingTo(),
        finishedSinceMillis,
        readiness);
  }

  VmLife life() {
    return new VmLife(
        WireName.parse(VmStatus.class, status).orElse(VmStatus.PENDING),
        worker,
        restartCount,
        message,
        exitCode,
        lastTaskEventId,
        scheduledAtMillis,
        startedAtMillis,
        finishedAtMillis,
        movingFrom,
        movingTo,
        restartAtMillis);
  }

  RestartRule.Count count() {
    return new RestartRule.Count(failuresInARow, restartsAfterFailure);
  }
}
