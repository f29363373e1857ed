package dev.rota.scheduler.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TemporalTagKeysTest {
  @Test
  void aTemporalMeterWithOtherTagsIsKeptUnderTheFirstOnesLabels() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(new TemporalTagKeys());

    Timer.builder("temporal_request_latency")
        .tags("namespace", "default", "operation", "StartWorkflowExecution")
        .register(registry)
        .record(Duration.ofMillis(5));
    Timer.builder("temporal_request_latency")
        .tags("namespace", "default", "operation", "UpdateWorkflowExecution", "workflow_type", "Vm")
        .register(registry)
        .record(Duration.ofMillis(7));

    String scraped = registry.scrape();
    assertTrue(scraped.contains("operation=\"UpdateWorkflowExecution\""), scraped);
    assertTrue(scraped.contains("operation=\"StartWorkflowExecution\""), scraped);
  }

  @Test
  void withoutItThePrometheusRegistryDropsTheSecond() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Timer.builder("temporal_request_latency")
        .tags("namespace", "default", "operation", "StartWorkflowExecution")
        .register(registry);
    try {
      Timer.builder("temporal_request_latency")
          .tags(
              "namespace", "default", "operation", "UpdateWorkflowExecution", "workflow_type", "Vm")
          .register(registry)
          .record(Duration.ofMillis(7));
    } catch (IllegalArgumentException refused) {
      // what some registry versions do instead of dropping it quietly
    }
    assertTrue(!registry.scrape().contains("UpdateWorkflowExecution"), "the problem this solves");
  }
}
