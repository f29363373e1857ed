package dev.rota.store;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.ZoneOffset;

/** The wall clock of the store, the activities and the API; tests replace it. */
@Factory
public class ClockFactory {
  /**
   * The wall clock of activities and the API, in milliseconds: what the database stores and the API
   * shows, so that an answer never shows a time more precise than a later read of it.
   */
  @Singleton
  Clock clock() {
    return Clock.tickMillis(ZoneOffset.UTC);
  }
}
