package dev.rota.api.throttle;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per caller: {@code burst} requests at once, refilled at {@code perSecond}; a
 * request that finds its bucket empty is told how long until it would not. The table is bounded:
 * when it holds {@code maxCallers}, the buckets that have refilled (the same as new ones) are
 * dropped, and callers still beyond the bound share one bucket, so that many made-up tokens cannot
 * take the memory.
 */
public final class TokenBuckets {
  static final String OTHERS = "(others)";

  private final double perSecond;
  private final double burst;
  private final int maxCallers;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

  /** Tokens left as of {@code atNanos}. Guarded by itself. */
  private static final class Bucket {
    double tokens;
    long atNanos;

    Bucket(double tokens, long atNanos) {
      this.tokens = tokens;
      this.atNanos = atNanos;
    }
  }

  public TokenBuckets(double perSecond, int burst, int maxCallers) {
    if (perSecond <= 0 || burst < 1 || maxCallers < 1) {
      throw new IllegalArgumentException(
          "a rate limit needs a rate above 0, a burst and room for callers of at least 1");
    }
    this.perSecond = perSecond;
    this.burst = burst;
    this.maxCallers = maxCallers;
  }

  /**
   * Takes one request from the caller's bucket: empty if it may go on, else how long until it may.
   */
  public Optional<Duration> take(String caller, long nowNanos) {
    Bucket bucket = buckets.get(caller);
    if (bucket == null) {
      if (buckets.size() >= maxCallers) {
        buckets.values().removeIf(b -> full(b, nowNanos));
      }
      bucket =
          buckets.size() >= maxCallers
              ? buckets.computeIfAbsent(OTHERS, k -> new Bucket(burst, nowNanos))
              : buckets.computeIfAbsent(caller, k -> new Bucket(burst, nowNanos));
    }
    synchronized (bucket) {
      refill(bucket, nowNanos);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return Optional.empty();
      }
      return Optional.of(Duration.ofNanos((long) Math.ceil((1 - bucket.tokens) / perSecond * 1e9)));
    }
  }

  int callers() {
    return buckets.size();
  }

  private boolean full(Bucket bucket, long nowNanos) {
    synchronized (bucket) {
      refill(bucket, nowNanos);
      return bucket.tokens >= burst;
    }
  }

  private void refill(Bucket bucket, long nowNanos) {
    if (nowNanos > bucket.atNanos) {
      bucket.tokens =
          Math.min(burst, bucket.tokens + (nowNanos - bucket.atNanos) / 1e9 * perSecond);
      bucket.atNanos = nowNanos;
    }
  }
}
