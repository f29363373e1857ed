package dev.rota.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.testing.TestClock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A long activity's beats tell when its host was paused past the point where Temporal may have
 * moved it.
 */
class HeartbeatsTest {
  @Test
  void aPauseLongerThanTheHeartbeatTimeoutLessABeatMakesEveryLaterWriteStale() {
    TestClock clock = TestClock.standingAt(Instant.parse("2026-11-26T12:00:00Z"));
    try (Heartbeats heartbeats = new Heartbeats(clock);
        Heartbeats.Beating alive = heartbeats.watching(() -> {})) {
      alive.stillCurrent("committing");
      clock.advance(Heartbeats.STALE_AFTER);
      alive.stillCurrent("committing"); // 4 s: Temporal has not given the attempt away yet
      clock.advance(Heartbeats.STALE_AFTER.plusMillis(1));
      Heartbeats.Stale stale =
          assertThrows(Heartbeats.Stale.class, () -> alive.stillCurrent("committing"));
      assertEquals(
          "stopped before committing: its host was paused or starved for 4001 ms, past the point where "
              + "Temporal may have given the attempt to another host",
          stale.getMessage());
      assertThrows(Heartbeats.Stale.class, () -> alive.stillCurrent("recording"), "and stays so");
    }
  }
}
