package dev.rota.host;

import dev.rota.control.SchedulerHealth;
import dev.rota.control.WorkflowKeeper;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * {@code /health}'s view of the scheduler: {@code DEGRADED} (still answered 200: the host serves,
 * and another host's restart would not help) when no term has come for longer than a working
 * scheduler waits, with the reason; up otherwise.
 */
@Singleton
public class SchedulerHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  /** Below DOWN's severity, so that a down database or Temporal still speaks for the host. */
  static final HealthStatus DEGRADED =
      new HealthStatus("DEGRADED", "the scheduler runs no terms", true, 500);

  private final ClusterStatusRepository status;
  private final WorkflowKeeper keeper;

  public SchedulerHealthIndicator(ClusterStatusRepository status, WorkflowKeeper keeper) {
    this.status = status;
    this.keeper = keeper;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    var lastTermAt =
        status.findById(ClusterWorkflow.WORKFLOW_ID).map(ClusterStatusRow::lastTermAt).orElse(null);
    SchedulerHealth health = keeper.schedulerHealth(lastTermAt);
    healthStatus = health.degraded() ? DEGRADED : HealthStatus.UP;
    return Map.of("workflowId", ClusterWorkflow.WORKFLOW_ID, "message", health.message());
  }

  @Override
  protected String getName() {
    return "scheduler";
  }
}
