package dev.rota.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WokenTermGapTest {
  private static final long GAP = 250_000_000L;

  /** The clock, moved only by the waits the gap asks for. */
  private final AtomicLong now = new AtomicLong(1_000_000_000_000L);

  private final List<Long> waits = new ArrayList<>();

  private final WokenTermGap gap =
      new WokenTermGap(
          GAP,
          now::get,
          nanos -> {
            waits.add(nanos);
            now.addAndGet(nanos);
          });

  @Test
  void theFirstWokenTermBeginsAtOnce() {
    gap.beforeWokenTerm();
    assertEquals(List.of(), waits);
  }

  @Test
  void aTermWokenSoonAfterTheLastEndedWaitsOutTheRestOfTheGap() {
    gap.termEnded();
    now.addAndGet(100_000_000L); // the workflow's task and the activity's dispatch took 100 ms
    gap.beforeWokenTerm();
    assertEquals(List.of(150_000_000L), waits);
  }

  @Test
  void aTermWokenAfterAQuietWhileBeginsAtOnce() {
    gap.termEnded();
    now.addAndGet(GAP);
    gap.beforeWokenTerm();
    assertEquals(List.of(), waits);
  }

  @Test
  void aWaitCutShortWaitsForWhatIsLeft() {
    List<Long> asked = new ArrayList<>();
    WokenTermGap spurious =
        new WokenTermGap(
            GAP,
            now::get,
            nanos -> {
              asked.add(nanos);
              now.addAndGet(Math.min(nanos, 100_000_000L)); // woken early, as a park may be
            });
    spurious.termEnded();
    spurious.beforeWokenTerm();
    assertEquals(List.of(GAP, GAP - 100_000_000L, GAP - 200_000_000L), asked);
  }
}
