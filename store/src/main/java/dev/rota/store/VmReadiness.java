package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import java.time.Instant;

/**
 * What a VM's readiness check last said, as its agent reported it: of its task of {@code
 * generation}, ready since {@code since}, or not, saying why. Task reports write it; a VM's view
 * reads it only while that task is the VM's current one and runs.
 *
 * @param generation the restart count of the task it is about; null when none was reported
 * @param since when it became ready; null while it is not
 * @param message what the check said when it failed; null when it passes
 */
@Embeddable
public record VmReadiness(
    @MappedProperty("ready_generation") @Nullable Integer generation,
    @MappedProperty("ready_since") @Nullable Instant since,
    @MappedProperty("readiness_message") @Nullable String message) {
  public static final VmReadiness NONE = new VmReadiness(null, null, null);

  /**
   * Whether the check passes for the task of {@code restartCount}: it is that task's word, and
   * ready.
   */
  public boolean passesFor(int restartCount) {
    return generation != null && generation == restartCount && since != null;
  }

  /**
   * Whether a VM of {@code status} and {@code restartCount}, with a readiness check or not, runs
   * without having passed it yet.
   */
  public boolean awaited(String status, int restartCount, boolean checked) {
    return checked && "running".equals(status) && !passesFor(restartCount);
  }
}
