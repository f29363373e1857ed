package dev.rota.control;

import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import dev.rota.store.Conflicts;
import jakarta.inject.Singleton;

/**
 * What an administrator changes of the cluster as a whole: the scheduler's profile, and a pause of
 * its placements or of new submissions.
 */
@Singleton
public class ClusterCommands {
  private final ClusterSettingsRepository settings;
  private final ControlWorkflows workflows;
  private final java.time.Clock clock;
  private final SubmissionGate gate;

  public ClusterCommands(
      ClusterSettingsRepository settings,
      ControlWorkflows workflows,
      java.time.Clock clock,
      SubmissionGate gate) {
    this.settings = settings;
    this.gate = gate;
    this.clock = clock;
    this.workflows = workflows;
  }

  /** The settings as they are. */
  public ClusterSettingsRow current() {
    return settings
        .findById(ClusterSettingsRow.ID)
        .orElseThrow(() -> new IllegalStateException("cluster_settings has no default row"));
  }

  /**
   * Sets the scheduler's profile, the lease VMs and sets submitted from now on without a {@code
   * maxRunDuration} get (null: none; VMs already submitted keep theirs), the instance sizes and
   * whether the scheduler preempts, together. A new profile or preemption setting wakes the
   * scheduler, whose next term places by it.
   */
  public void setSettings(
      String profile, Integer defaultMaxRunSeconds, String instanceSizes, boolean preemption) {
    boolean schedulingChanged =
        Conflicts.retry(
            () -> {
              ClusterSettingsRow row = current();
              ClusterSettingsRow next =
                  row.withSettings(profile, defaultMaxRunSeconds, instanceSizes, preemption);
              if (next.equals(row)) {
                return false;
              }
              settings.update(next);
              return !row.schedulerProfile().equals(profile) || row.preemption() != preemption;
            });
    gate.forget();
    if (schedulingChanged) {
      workflows.wakeScheduler(
          "scheduler profile set to " + profile + ", preemption " + (preemption ? "on" : "off"));
    }
  }

  /**
   * Pauses or resumes the cluster's placements and moves ({@code scheduling}) and its new
   * submissions ({@code submissions}), saying {@code reason}; a change to placements wakes the
   * scheduler, whose next term pauses or places at once.
   */
  public ClusterSettingsRow setPause(boolean scheduling, boolean submissions, String reason) {
    java.time.Instant now = clock.instant();
    boolean[] placementsChanged = {false};
    ClusterSettingsRow row =
        Conflicts.retry(
            () -> {
              ClusterSettingsRow current = current();
              ClusterSettingsRow next = current.withPause(scheduling, submissions, reason, now);
              if (next.equals(current)) {
                return current;
              }
              placementsChanged[0] =
                  current.schedulingPaused() != scheduling
                      || scheduling
                          && !java.util.Objects.equals(current.pauseReason(), next.pauseReason());
              return settings.update(next);
            });
    gate.forget();
    // Only placements (and what pending VMs say of them) are the scheduler's; submissions the
    // gate's.
    if (placementsChanged[0]) {
      workflows.wakeScheduler(
          scheduling ? "scheduling paused: " + reason : "scheduling not paused");
    }
    return row;
  }
}
