package dev.rota.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The tests' clock: one that stands still until a test moves it, or one that follows another source
 * (Temporal's test server, so that skipped time counts for the activities too).
 */
public final class TestClock extends Clock {
  private volatile LongSupplier source;
  private volatile long offsetMillis;

  private TestClock(LongSupplier source) {
    this.source = source;
  }

  public static TestClock standingAt(Instant start) {
    long at = start.toEpochMilli();
    return new TestClock(() -> at);
  }

  public static TestClock following(LongSupplier millis) {
    return new TestClock(millis);
  }

  /**
   * From now on tells the time of {@code millis} (moves made with {@link #advance} still count).
   */
  public void follow(LongSupplier millis) {
    this.source = millis;
  }

  public void advance(Duration by) {
    offsetMillis += by.toMillis();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public long millis() {
    return source.getAsLong() + offsetMillis;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
