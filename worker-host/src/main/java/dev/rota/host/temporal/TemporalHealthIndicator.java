package dev.rota.host.temporal;

import io.grpc.health.v1.HealthCheckResponse;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;
import java.util.Map;

/** {@code /health}'s view of the Temporal frontend: up while it answers its gRPC health check. */
@Singleton
public class TemporalHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final WorkflowServiceStubs stubs;
  private final TemporalSettings settings;

  public TemporalHealthIndicator(WorkflowServiceStubs stubs, TemporalSettings settings) {
    this.stubs = stubs;
    this.settings = settings;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    HealthCheckResponse.ServingStatus status;
    try {
      status = stubs.healthCheck().getStatus();
    } catch (RuntimeException e) {
      healthStatus = HealthStatus.DOWN;
      return Map.of("target", settings.target(), "error", String.valueOf(e.getMessage()));
    }
    healthStatus =
        status == HealthCheckResponse.ServingStatus.SERVING ? HealthStatus.UP : HealthStatus.DOWN;
    return Map.of("target", settings.target(), "status", status.name());
  }

  @Override
  protected String getName() {
    return "temporal";
  }
}
