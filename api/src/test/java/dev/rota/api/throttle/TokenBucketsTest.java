package dev.rota.api.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TokenBucketsTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aBurstGoesThroughThenTheRateAndTheRefusalSaysHowLongToWait() {
    TokenBuckets buckets = new TokenBuckets(2, 3, 100);
    for (int i = 0; i < 3; i++) {
      assertEquals(Optional.empty(), buckets.take("a", 0), "request " + i + " of the burst");
    }
    assertEquals(
        Optional.of(Duration.ofMillis(500)),
        buckets.take("a", 0),
        "two a second: the next in half a second");
    assertEquals(Optional.of(Duration.ofMillis(250)), buckets.take("a", SECOND / 4));
    assertEquals(Optional.empty(), buckets.take("a", SECOND / 2));
    assertEquals(
        Optional.empty(), buckets.take("b", SECOND / 2), "another caller has its own bucket");
    assertEquals(Optional.empty(), buckets.take("a", 10 * SECOND));
    assertEquals(Optional.empty(), buckets.take("a", 10 * SECOND));
    assertEquals(Optional.empty(), buckets.take("a", 10 * SECOND));
    assertTrue(
        buckets.take("a", 10 * SECOND).isPresent(), "a long pause refills the burst, no more");
  }

  @Test
  void callersBeyondTheBoundShareOneBucketAndRefilledOnesMakeRoom() {
    TokenBuckets buckets = new TokenBuckets(1, 1, 2);
    assertEquals(Optional.empty(), buckets.take("a", 0));
    assertEquals(Optional.empty(), buckets.take("b", 0));
    assertEquals(Optional.empty(), buckets.take("c", 0), "the first of the others");
    assertTrue(
        buckets.take("d", 0).isPresent(),
        "d shares c's bucket: made-up callers do not each get a burst");
    assertEquals(3, buckets.callers(), "a, b and the others' bucket");
    assertEquals(
        Optional.empty(), buckets.take("e", 5 * SECOND), "all refilled: dropped, e has its own");
    assertEquals(1, buckets.callers());
  }
}
