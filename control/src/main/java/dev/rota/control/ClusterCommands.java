package dev.rota.control;

import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import dev.rota.store.Conflicts;
import jakarta.inject.Singleton;

/** What an administrator changes of the cluster as a whole: the scheduler's profile. */
@Singleton
public class ClusterCommands {
  private final ClusterSettingsRepository settings;
  private final ControlWorkflows workflows;

  public ClusterCommands(ClusterSettingsRepository settings, ControlWorkflows workflows) {
    this.settings = settings;
    this.workflows = workflows;
  }

  /** The settings as they are. */
  public ClusterSettingsRow current() {
    return settings
        .findById(ClusterSettingsRow.ID)
        .orElseThrow(() -> new IllegalStateException("cluster_settings has no default row"));
  }

  /** Sets the scheduler's profile; a change wakes the scheduler, whose next term places by it. */
  public void setSchedulerProfile(String profile) {
    boolean changed =
        Conflicts.retry(
            () -> {
              ClusterSettingsRow row = current();
              if (row.schedulerProfile().equals(profile)) {
                return false;
              }
              settings.update(new ClusterSettingsRow(row.id(), profile, row.version()));
              return true;
            });
    if (changed) {
      workflows.wakeScheduler("scheduler profile set to " + profile);
    }
  }
}
