package dev.rota.api.metrics;

import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.control.ClusterGauges;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * {@code GET /metrics}: this host's meters in Prometheus' text format: the cluster's gauges (read
 * from the store now, alike on every host), what the scheduler did while it ran here, the Temporal
 * SDK's client and worker meters, and the JVM's. With auth on, a compute:read token scrapes it.
 */
@ProblemAnswers.Guarded
@Tag(name = "Metrics", description = "Prometheus metrics")
@Controller("/metrics")
@ExecuteOn(TaskExecutors.BLOCKING)
public class MetricsController {
  /** Prometheus' text exposition format. */
  static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry;
  private final ClusterGauges gauges;

  public MetricsController(PrometheusMeterRegistry registry, ClusterGauges gauges) {
    this.registry = registry;
    this.gauges = gauges;
  }

  @RequiresRole({Role.COMPUTE_READ, Role.ADMIN_READ})
  @Get(produces = TEXT_FORMAT)
  @Operation(operationId = "scrapeMetrics", summary = "Prometheus metrics")
  public String scrape() {
    gauges.refresh();
    return registry.scrape();
  }
}
