package dev.rota.core.lifecycle;

import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.VmStatus;
import java.time.Instant;

/**
 * What a VM's workflow last heard its readiness check say, and how its summary shows it. The news
 * comes apart from the lifecycle's (a check changes no status), at least once and possibly out of
 * order: it is kept only when newer than the last heard and about the VM's current task or a later
 * one, and shown only while the VM runs that task.
 *
 * @param checked whether the VM has a readiness check (without one, running is ready)
 * @param generation the restart count of the task it is about; -1 when none was heard
 * @param sinceMillis when the check began to pass; 0 while it does not
 * @param why what the check said when it last failed; null when it passes or has not failed
 * @param lastEventId the outbox id of the last readiness news heard
 */
public record HeardReadiness(
    boolean checked, int generation, long sinceMillis, String why, long lastEventId) {

  /** Nothing heard yet, of a VM with a readiness check or without. */
  public static HeardReadiness none(boolean checked) {
    return new HeardReadiness(checked, -1, 0, null, 0);
  }

  /**
   * After readiness news {@code type} (with id {@code eventId}, about the task of {@code
   * generation}) reaches a VM at {@code restartCount}: {@code atMillis} is when the check began to
   * pass, {@code why} what it said when it failed. Any other news, a repeat, news overtaken by
   * later news, or news of an earlier task changes nothing.
   */
  public HeardReadiness heard(
      long eventId,
      TaskEventType type,
      int generation,
      long atMillis,
      String why,
      int restartCount) {
    if (type == null
        || !type.tellsReadiness()
        || eventId <= lastEventId
        || generation < Math.max(restartCount, this.generation)) {
      return this;
    }
    boolean ready = type == TaskEventType.READY;
    return new HeardReadiness(
        checked, generation, ready ? atMillis : 0, ready ? null : why, eventId);
  }

  /**
   * How the summary of a VM in {@code status} at {@code restartCount} shows its readiness: ready
   * since when, not ready and why, not yet ready; null when there is nothing to say (it does not
   * run, or has no check, so that running is ready).
   */
  public String shown(VmStatus status, int restartCount) {
    if (!checked || status != VmStatus.RUNNING) {
      return null;
    }
    if (generation != restartCount) {
      return "not ready yet";
    }
    if (sinceMillis > 0) {
      return "ready since " + Instant.ofEpochMilli(sinceMillis);
    }
    return why == null ? "not ready yet" : "not ready: " + why;
  }
}
