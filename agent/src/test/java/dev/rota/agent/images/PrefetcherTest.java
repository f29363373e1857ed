package dev.rota.agent.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.testing.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Images the controller asks to fetch ahead: fetched once into the cache and then held; a fetch
 * that fails is said, and tried again only after a while.
 */
class PrefetcherTest {
  @TempDir Path data;
  private final ObjectMapper json = new ObjectMapper();
  private final TestClock clock = TestClock.standingAt(Instant.parse("2026-11-26T00:00:00Z"));

  @Test
  void anAskedImageIsFetchedOnceAndHeldAndAFailureIsSaidAndTriedAgainLater() throws Exception {
    HeldImages held = new HeldImages(data.resolve("held.json"), json, clock);
    ImageCache cache =
        new ImageCache(
            data.resolve("images"),
            1L << 30,
            json,
            clock,
            held,
            new OciRegistry(json, Map.of(), java.util.Set.of()));
    AtomicInteger fetches = new AtomicInteger();
    Prefetcher prefetcher =
        new Prefetcher(
            cache,
            held,
            r -> {
              fetches.incrementAndGet();
              r.run();
            },
            clock);
    String image = Files.write(data.resolve("disk.raw"), new byte[4096]).toUri().toString();
    String missing = data.resolve("nowhere.raw").toUri().toString();

    prefetcher.want(List.of(image, missing));
    assertEquals(2, fetches.get());
    assertEquals(
        List.of(image),
        held.report().images().stream().map(i -> i.get("image")).toList(),
        "fetched and held");
    assertEquals(
        List.of(
            Map.of(
                "image",
                missing,
                "state",
                "failed",
                "message",
                "image " + missing + ": no such file on this worker")),
        held.report().pulls(),
        "the failure, said with the heartbeats");

    prefetcher.want(List.of(image, missing));
    assertEquals(2, fetches.get(), "a held image is not fetched again, a failed one not yet");
    clock.advance(Prefetcher.RETRY.plus(Duration.ofSeconds(1)));
    prefetcher.want(List.of(image, missing));
    assertEquals(3, fetches.get(), "the failed one is tried again after a while");
    assertTrue(cache.refs().containsKey(image));
  }
}
