package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OnceMoreTest {
  /** An executor run by hand: what it was given runs when the test says. */
  private final Queue<Runnable> given = new ArrayDeque<>();

  private final AtomicInteger calls = new AtomicInteger();

  @Test
  void askingsWhileACallIsUnderWayMakeOneCallMore() {
    OnceMore[] once = new OnceMore[1];
    once[0] =
        new OnceMore(
            given::add,
            () -> {
              if (calls.incrementAndGet() == 1) {
                once[0].ask(); // asked while the first call is under way ...
                once[0].ask(); // ... twice
              }
            });
    once[0].ask();
    once[0].ask(); // before the first call begins: it answers this one too
    assertEquals(1, given.size(), "one thread makes the calls");
    given.remove().run();
    assertEquals(2, calls.get(), "the first call, then one for both askings made during it");
    once[0].ask();
    assertEquals(1, given.size(), "idle again: the next asking hands a new run over");
    given.remove().run();
    assertEquals(3, calls.get());
  }

  @Test
  void aCallThatFailsDoesNotSilenceTheNext() {
    OnceMore once =
        new OnceMore(
            given::add,
            () -> {
              calls.incrementAndGet();
              throw new IllegalStateException("Temporal away");
            });
    once.ask();
    given.remove().run();
    once.ask();
    assertEquals(1, given.size(), "the failed call left no asking behind");
    given.remove().run();
    assertEquals(2, calls.get());
  }

  @Test
  void anExecutorThatTakesNothingMoreDropsTheAskingAndTheNextTriesAgain() {
    AtomicInteger refusals = new AtomicInteger(1);
    OnceMore once =
        new OnceMore(
            r -> {
              if (refusals.getAndDecrement() > 0) {
                throw new RejectedExecutionException("full");
              }
              given.add(r);
            },
            calls::incrementAndGet);
    assertThrows(RejectedExecutionException.class, once::ask);
    once.ask();
    given.remove().run();
    assertEquals(1, calls.get());
  }
}
