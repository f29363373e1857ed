package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.testing.TestClock;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@code /metrics} says for the alert rules, read from the store at each scrape. */
@MicronautTest(environments = WorkerApiTest.MOVED_BY_HAND)
class MetricsApiTest {
  /** WorkerApiTest's, moved by hand: its time is earlier than any row a wall-clock test makes. */
  private static final TestClock clock = WorkerApiTest.clock;

  @Inject Http http;

  private double sample(String series) {
    Http.Reply scrape = http.get("/metrics");
    assertEquals(200, scrape.status(), scrape.toString());
    return dev.rota.testing.PrometheusText.sample(scrape.body(), series)
        .orElseThrow(() -> new AssertionError(series + " in:\n" + scrape.body()));
  }

  @Test
  void theOldestPendingVmsWaitGrowsWithTimeAndTheStoreAndTemporalAreSaidToAnswer() {
    Http.Reply created =
        http.post(
            "/v1/vms",
            "{\"name\":\"too-big-to-place\",\"command\":[\"true\"],\"resources\":{\"cpu\":512}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals(0.0, sample("rota_vm_oldest_pending_seconds"), "submitted just now");
    clock.advance(Duration.ofMinutes(20));
    assertEquals(1200.0, sample("rota_vm_oldest_pending_seconds"), "pending for 20 minutes");
    assertEquals(1.0, sample("rota_database_up"));
    assertEquals(1.0, sample("rota_temporal_up"));
  }
}
