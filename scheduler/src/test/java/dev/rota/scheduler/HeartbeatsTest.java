package dev.rota.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.testing.TestClock;
import io.temporal.client.ActivityCanceledException;
import io.temporal.client.ActivityNotExistsException;
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

  @Test
  void aCancelStopsATermBeforeItsCommitButNotTheWritesAfterIt() {
    try (Heartbeats heartbeats = new Heartbeats(TestClock.standingAt(Instant.EPOCH));
        Heartbeats.Beat alive = refusedAtItsBeat(heartbeats, new ActivityCanceledException())) {
      Heartbeats.Stale stale =
          assertThrows(Heartbeats.Stale.class, () -> alive.stillCurrent("committing"));
      assertEquals("stopped before committing: its workflow cancelled it", stale.getMessage());
      alive.stillOurs("carrying out the term's actions");
      alive.stillOurs("recording the term");
    }
  }

  @Test
  void anAttemptTemporalNoLongerHoldsWritesNothingMore() {
    try (Heartbeats heartbeats = new Heartbeats(TestClock.standingAt(Instant.EPOCH));
        Heartbeats.Beat alive =
            refusedAtItsBeat(heartbeats, new ActivityNotExistsException(new RuntimeException()))) {
      assertThrows(Heartbeats.Stale.class, () -> alive.stillCurrent("committing"));
      assertThrows(Heartbeats.Stale.class, () -> alive.stillOurs("recording the term"));
    }
  }

  /** A beat whose heartbeat Temporal answered with {@code refusal}, once beaten. */
  private static Heartbeats.Beat refusedAtItsBeat(Heartbeats heartbeats, RuntimeException refusal) {
    Heartbeats.Beat alive =
        heartbeats.watching(
            () -> {
              throw refusal;
            });
    alive.stillCurrent("committing"); // no beat has been sent yet
    alive.beat();
    return alive;
  }
}
