package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Each watch holds a thread: a host keeps at most {@code rota.api.max-watches}, and says so with a
 * 429.
 */
@MicronautTest(transactional = false)
@Property(name = "rota.api.max-watches", value = "1")
class WatchLimitTest {
  @Inject Http http;

  @Test
  void oneWatchMoreThanTheHostKeepsIsA429UntilOneEnds() throws Exception {
    try (Http.Lines first = http.lines("/v1/workers?watch=true")) {
      assertEquals(200, first.status);
      Http.Reply second = http.get("/v1/vms?watch=true");
      assertEquals(429, second.status(), second.toString());
      assertTrue(second.isProblem());
      assertTrue(second.detail().contains("1 watches and followed logs are open"), second.detail());
      assertEquals("1", second.header("Retry-After"), "says when to try again");
      assertEquals(200, http.get("/v1/vms").status(), "a list is no watch");
    }
    // The closed stream gives its place back (the server notices the client left).
    dev.rota.testing.Eventually.eventually(
        "a watch again",
        () -> {
          try (Http.Lines again = http.lines("/v1/workers?watch=true&timeoutSeconds=1")) {
            return again.status == 200;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
