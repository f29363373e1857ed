package dev.rota.agent.images;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches the images the controller asks for ahead of VMs (its heartbeat's answer names them) into
 * the image cache, one fetch each at a time, saying how each goes with the heartbeats ({@link
 * HeldImages}); a fetched image is then held like any other, and evicted like any other when no VM
 * uses it. A fetch that failed is tried again, while still asked, after {@link #RETRY}.
 */
public final class Prefetcher {
  private static final Logger log = LoggerFactory.getLogger(Prefetcher.class);

  static final Duration RETRY = Duration.ofMinutes(1);

  private final ImageCache cache;
  private final HeldImages held;
  private final Executor fetches;
  private final Clock clock;
  private final Map<String, Boolean> underWay = new ConcurrentHashMap<>();
  private final Map<String, Instant> failedAt = new ConcurrentHashMap<>();

  public Prefetcher(ImageCache cache, HeldImages held, Executor fetches, Clock clock) {
    this.cache = cache;
    this.held = held;
    this.fetches = fetches;
    this.clock = clock;
  }

  /** The images asked for now; each not held, not under way and not failed just now is fetched. */
  public void want(List<String> images) {
    Instant now = clock.instant();
    for (String image : images) {
      if (cache.refs().containsKey(image)) {
        continue;
      }
      Instant failed = failedAt.get(image);
      if (failed != null && failed.plus(RETRY).isAfter(now)) {
        continue;
      }
      if (underWay.putIfAbsent(image, true) != null) {
        continue;
      }
      held.pulling(image, "asked to fetch it ahead");
      fetches.execute(() -> fetch(image));
    }
  }

  private void fetch(String image) {
    try {
      ImageCache.Lease lease = cache.acquire(image, progress -> held.pulling(image, progress));
      cache.release(lease.sha256());
      failedAt.remove(image);
      held.pullEnded(image);
      log.info("image {} fetched ahead of its VMs", image);
    } catch (ImageCache.ImageException e) {
      failedAt.put(image, clock.instant());
      held.pullFailed(image, e.getMessage());
      log.warn("image {} could not be fetched ahead: {}", image, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      held.pullEnded(image);
    } finally {
      underWay.remove(image);
    }
  }
}
