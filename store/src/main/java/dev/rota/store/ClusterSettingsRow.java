package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Version;
import java.time.Instant;

/**
 * The cluster-wide settings users change through the API; one row, id {@code default}.
 *
 * @param schedulingPaused no placements or moves while set: terms still observe, judge health and
 *     report
 * @param rejectSubmissions new VMs and VM sets refused (503) while set
 * @param pauseReason what the operator said of either, shown to users; null when neither is set
 * @param pausedAt since when either is set, or null
 * @param instanceSizes the sizes a VM may name, as JSON: {@code {"small": {"cpu": 1, "memory":
 *     1024}}}; null for none
 * @param preemption whether a waiting VM may evict running VMs of lower priority to make room
 */
@MappedEntity("cluster_settings")
public record ClusterSettingsRow(
    @Id String id,
    String schedulerProfile,
    boolean schedulingPaused,
    boolean rejectSubmissions,
    @Nullable String pauseReason,
    @Nullable Instant pausedAt,
    @Nullable Integer defaultMaxRunSeconds,
    @Version long version,
    @Nullable String instanceSizes,
    boolean preemption) {
  public static final String ID = "default";

  /**
   * With the settings users set all at once: the profile, the lease VMs submitted without one get
   * (null: none), the instance sizes VMs may name (JSON, or null for none) and whether the
   * scheduler preempts.
   */
  public ClusterSettingsRow withSettings(
      String profile, Integer defaultMaxRun, String sizes, boolean preempts) {
    return new ClusterSettingsRow(
        id,
        profile,
        schedulingPaused,
        rejectSubmissions,
        pauseReason,
        pausedAt,
        defaultMaxRun,
        version,
        sizes,
        preempts);
  }

  /** Paused, or not, as asked: the reason and the time kept while either holds. */
  public ClusterSettingsRow withPause(
      boolean scheduling, boolean submissions, String reason, Instant now) {
    boolean any = scheduling || submissions;
    return new ClusterSettingsRow(
        id,
        schedulerProfile,
        scheduling,
        submissions,
        any ? reason : null,
        any ? (pausedAt != null && (schedulingPaused || rejectSubmissions) ? pausedAt : now) : null,
        defaultMaxRunSeconds,
        version,
        instanceSizes,
        preemption);
  }
}
