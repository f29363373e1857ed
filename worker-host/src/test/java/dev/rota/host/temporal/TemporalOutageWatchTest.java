package dev.rota.host.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TemporalOutageWatchTest {
  /**
   * The next looks' answers, first first: null for "it answers", otherwise why it does not; then it
   * answers.
   */
  private final List<String> answers = new ArrayList<>();

  private final AtomicInteger reconnects = new AtomicInteger();
  private final AtomicInteger renewals = new AtomicInteger();
  private final TemporalOutageWatch watch =
      new TemporalOutageWatch(
          () -> answers.isEmpty() ? null : answers.remove(0),
          reconnects::incrementAndGet,
          renewals::incrementAndGet,
          Clock.systemUTC());

  private void answering(String... whys) {
    answers.addAll(Arrays.asList(whys));
  }

  @Test
  void aTemporalThatAlwaysAnswersIsLeftAlone() {
    for (int i = 0; i < 5; i++) {
      assertTrue(watch.look());
    }
    assertEquals(0, reconnects.get());
    assertEquals(0, renewals.get(), "pollers are renewed only after an outage");
  }

  @Test
  void whileAwayTheChannelReconnectsAtEachLookAndOnReturnThePollersAreRenewedOnce() {
    answering(
        "UNAVAILABLE: io exception", "UNAVAILABLE: io exception", "UNAVAILABLE: io exception");
    for (int i = 0; i < 3; i++) {
      assertFalse(watch.look());
    }
    assertEquals(3, reconnects.get(), "gRPC's own back-off is cut short at each look");
    assertEquals(0, renewals.get(), "nothing to poll while it is away");
    assertTrue(watch.look());
    assertTrue(watch.look());
    assertEquals(1, renewals.get(), "one renewal per return");
  }

  @Test
  void everyOutageEndsInItsOwnRenewal() {
    answering("down", null, "down", "down", null);
    for (int i = 0; i < 5; i++) {
      watch.look();
    }
    assertEquals(2, renewals.get());
    assertEquals(3, reconnects.get());
  }
}
