package dev.rota.api.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.api.Http;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A host works on at most {@code rota.api.max-in-flight} requests; one more is a 429 at once, not a
 * wait.
 */
@MicronautTest(transactional = false)
@Property(name = "rota.api.max-in-flight", value = "2")
@Property(name = "rota.test.slow-endpoint", value = "true")
class InFlightLimitTest {
  @Inject Http http;
  @Inject SlowController.Gate gate;

  @Test
  void oneRequestPastTheBoundIsA429UntilOneEndsAndWatchesAndAgentUpkeepAreBoundedApart()
      throws Exception {
    CompletableFuture<Http.Reply> first =
        CompletableFuture.supplyAsync(() -> http.get("/test/slow"));
    CompletableFuture<Http.Reply> second =
        CompletableFuture.supplyAsync(() -> http.get("/test/slow"));
    assertTrue(gate.arrived.await(30, TimeUnit.SECONDS), "both slow requests under way");

    Http.Reply third = http.get("/v1/vms");
    assertEquals(429, third.status(), third.toString());
    assertTrue(third.isProblem(), third.toString());
    assertTrue(third.detail().contains("this host is answering 2 requests"), third.detail());
    assertEquals("1", third.header("Retry-After"));
    Http.Reply heartbeat = http.put("/v1/workers/nobody/heartbeat", "");
    assertEquals(
        404,
        heartbeat.status(),
        "an agent's heartbeat is not held to the bound (and this worker is unknown): " + heartbeat);
    Http.Reply report = http.put("/v1/workers/nobody/tasks", "{\"tasks\":[]}");
    assertTrue(report.status() != 429, "nor its task report: " + report);
    assertEquals(429, http.post("/v1/workers", "{}").status(), "other calls about workers are");
    try (Http.Lines watch = http.lines("/v1/workers?watch=true&timeoutSeconds=1")) {
      assertEquals(200, watch.status, "a watch is not counted: WatchStreams bounds them");
    }

    gate.open.countDown();
    assertEquals(200, first.get(30, TimeUnit.SECONDS).status());
    assertEquals(200, second.get(30, TimeUnit.SECONDS).status());
    assertEquals(200, http.get("/v1/vms").status(), "the places were given back");
  }
}
