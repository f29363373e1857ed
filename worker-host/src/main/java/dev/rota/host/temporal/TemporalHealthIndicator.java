package dev.rota.host.temporal;

import dev.rota.scheduler.temporal.TemporalFrontend;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import jakarta.inject.Singleton;
import java.util.Map;

/** {@code /health}'s view of the Temporal frontend: up while it answers its gRPC health check. */
@Singleton
public class TemporalHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final TemporalFrontend frontend;
  private final TemporalSettings settings;

  public TemporalHealthIndicator(TemporalFrontend frontend, TemporalSettings settings) {
    this.frontend = frontend;
    this.settings = settings;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    TemporalFrontend.Answer answer = frontend.ask();
    healthStatus = answer.serving() ? HealthStatus.UP : HealthStatus.DOWN;
    return answer.status() == null
        ? Map.of("target", settings.target(), "error", answer.error())
        : Map.of("target", settings.target(), "status", answer.status().name());
  }

  @Override
  protected String getName() {
    return "temporal";
  }
}
