package dev.rota.activities.term;

import io.micronaut.context.annotation.Replaces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/** The activities' clock in these tests: the Temporal test server's, so that skipped time counts. */
@Singleton
@Replaces(Clock.class)
public class ServerClock extends Clock {
  private volatile LongSupplier millis = System::currentTimeMillis;

  void follow(LongSupplier serverMillis) {
    this.millis = serverMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.getAsLong());
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
