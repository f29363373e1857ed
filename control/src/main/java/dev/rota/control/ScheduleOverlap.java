package dev.rota.control;

import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import java.util.Arrays;

/**
 * What a schedule's run does when it comes due while the last run's VM still runs: Temporal's
 * overlap policies, under the names the API takes.
 */
public enum ScheduleOverlap {
  /** The run is not made (the default, as a CronJob's {@code Forbid}). */
  SKIP("skip", ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP),
  /** One run waits for the last to end; a further one due meanwhile is dropped. */
  BUFFER_ONE("bufferOne", ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE),
  /** Every run is made at its time, however many still run. */
  ALLOW_ALL("allowAll", ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL),
  /** The last run's VM is stopped, then the new one made (a CronJob's {@code Replace}). */
  CANCEL_OTHER("cancelOther", ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER),
  /**
   * The last run is ended at once, its VM left as it is: only ever set on Temporal's own UI, and
   * shown as such; the API does not take it, since it would leave a VM no run waits on.
   */
  TERMINATE_OTHER("terminateOther", ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER);

  private final String word;
  private final ScheduleOverlapPolicy policy;

  ScheduleOverlap(String word, ScheduleOverlapPolicy policy) {
    this.word = word;
    this.policy = policy;
  }

  public String word() {
    return word;
  }

  ScheduleOverlapPolicy policy() {
    return policy;
  }

  public static ScheduleOverlap of(String word) {
    return Arrays.stream(values())
        .filter(o -> o.word.equals(word))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no overlap policy " + word));
  }

  static ScheduleOverlap of(ScheduleOverlapPolicy policy) {
    return Arrays.stream(values())
        .filter(o -> o.policy == policy)
        .findFirst()
        // Temporal's unspecified policy is its default, skip.
        .orElse(SKIP);
  }
}
