package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A heartbeat's answer paces the fleet: at most one beat a second in all here, and never past
 * lost-after / 3.
 */
@MicronautTest
@Property(name = "rota.workers.max-heartbeats-per-second", value = "1")
@Property(name = "rota.workers.lost-after", value = "30s")
class HeartbeatAdviceApiTest {
  @Inject Http http;

  @Test
  void aHeartbeatIsAskedToComeAsOftenAsTheFleetMayBeatAndNoLessOftenThanAThirdOfLostAfter() {
    for (int i = 0; i < 12; i++) {
      assertEquals(
          201, http.post("/v1/workers", WorkerApiTest.worker("paced-" + i, "m-p" + i, 4)).status());
    }
    Http.Reply beat = http.put("/v1/workers/paced-0/heartbeat", null);
    assertEquals(204, beat.status(), beat.toString());
    assertEquals(
        "10",
        beat.header("Rota-Heartbeat-Interval"),
        "12 workers at 1 a second would be 12 s; lost after 30 s: 10");
  }
}
