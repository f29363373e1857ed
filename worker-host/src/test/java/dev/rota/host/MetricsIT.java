package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static dev.rota.testing.PrometheusText.sample;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} scraped from dev mode with its two real agents, as Prometheus would: the
 * cluster's gauges, the scheduler's counters and histograms, the Temporal SDK's meters.
 */
class MetricsIT extends SharedDevStack {

  private String scrape() {
    RotaClient.Reply reply = stack.api("GET", "/metrics", null);
    assertEquals(200, reply.status(), reply.body());
    return reply.body();
  }

  @Test
  void aScrapeSaysWhatTheClusterHoldsAndWhatTheSchedulerAndTemporalDid() {
    RotaClient.Reply created =
        stack.api(
            "POST",
            "/v1/vms",
            "{\"name\":\"metered\",\"command\":[\"sleep\",\"313\"],\"resources\":{\"cpu\":1,\"memory\":256}}");
    assertEquals(201, created.status(), created.body());
    eventually("metered runs", () -> "running".equals(stack.vm("metered").get("status")));
    String worker = (String) stack.vm("metered").get("worker");

    String text = scrape();
    assertEquals(Optional.of(2.0), sample(text, "rota_workers{health=\"ready\"}"), text);
    assertEquals(
        Optional.of(0.0),
        sample(text, "rota_workers{health=\"offline\"}"),
        "every health has its series");
    assertEquals(Optional.of(1.0), sample(text, "rota_vms{status=\"running\"}"));
    assertEquals(
        Optional.of(1.0),
        sample(
            text, "rota_worker_resources_allocated{resource=\"cpu\",worker=\"" + worker + "\"}"));
    double capacity =
        sample(text, "rota_worker_resources_capacity{resource=\"cpu\",worker=\"" + worker + "\"}")
            .orElseThrow();
    assertEquals(
        Optional.of(capacity - 1),
        sample(text, "rota_worker_resources_free{resource=\"cpu\",worker=\"" + worker + "\"}"));
    assertEquals(
        Optional.of(1.0),
        sample(text, "rota_vm_submit_to_running_seconds_count"),
        "one VM ran for the first time");
    assertTrue(
        sample(text, "rota_vm_submit_to_running_seconds_bucket{le=\"+Inf\"}").isPresent(),
        "a histogram");
    assertTrue(sample(text, "rota_placements_total").orElseThrow() >= 1.0);
    assertTrue(sample(text, "rota_term_duration_seconds_count").orElseThrow() >= 1.0);
    assertTrue(sample(text, "rota_term_lost_races_total").isPresent());
    assertTrue(
        sample(text, "rota_vm_restarts_total{after_failure=\"true\"}").isPresent(),
        "a series before the first restart");
    // What the alert rules watch: all well.
    assertEquals(Optional.of(1.0), sample(text, "rota_scheduler_up"), "terms run in time");
    assertTrue(sample(text, "rota_scheduler_last_term_timestamp_seconds").orElseThrow() > 0);
    assertEquals(Optional.of(1.0), sample(text, "rota_database_up"));
    assertEquals(Optional.of(1.0), sample(text, "rota_temporal_up"));
    assertEquals(Optional.of(0.0), sample(text, "rota_vm_oldest_pending_seconds"), "nothing waits");
    assertTrue(text.contains("\ntemporal_"), "the Temporal SDK's own meters");
    assertTrue(text.contains("\njvm_memory_used_bytes"), "and the JVM's");

    assertEquals(202, stack.api("POST", "/v1/vms/metered/stop", null).status());
    eventually(
        "the stop's update latency scraped",
        () -> scrape().contains("operation=\"UpdateWorkflowExecution\""));

    assertEquals(202, stack.api("DELETE", "/v1/vms/metered", null).status());
    eventually("metered gone", () -> stack.api("GET", "/v1/vms/metered", null).status() == 404);
    String after = scrape();
    assertEquals(
        Optional.of(0.0),
        sample(after, "rota_vms{status=\"running\"}"),
        "a gauge says what is, not what was");
    assertEquals(
        Optional.of(0.0),
        sample(
            after, "rota_worker_resources_allocated{resource=\"cpu\",worker=\"" + worker + "\"}"));
  }
}
