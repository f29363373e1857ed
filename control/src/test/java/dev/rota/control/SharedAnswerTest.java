package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SharedAnswerTest {
  private final ExecutorService calls = Executors.newCachedThreadPool();
  private final AtomicInteger asked = new AtomicInteger();

  @AfterEach
  void close() {
    calls.shutdownNow();
  }

  @Test
  void aFreshAnswerIsReusedWithoutAskingAgain() {
    SharedAnswer<Integer> answer =
        new SharedAnswer<>(asked::incrementAndGet, calls, Duration.ofHours(1), Duration.ofHours(1));

    assertEquals(Optional.of(1), answer.get(Duration.ofSeconds(5)));
    assertEquals(Optional.of(1), answer.get(Duration.ofSeconds(5)));
    assertEquals(1, asked.get());
  }

  @Test
  void aStaleAnswerIsAskedAgain() {
    SharedAnswer<Integer> answer =
        new SharedAnswer<>(asked::incrementAndGet, calls, Duration.ZERO, Duration.ofHours(1));

    answer.get(Duration.ofSeconds(5));
    assertEquals(Optional.of(2), answer.get(Duration.ofSeconds(5)));
  }

  @Test
  void callersWhileACallIsUnderWayShareItAndOneWhoStopsWaitingGetsNothing() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    SharedAnswer<Integer> answer =
        new SharedAnswer<>(
            () -> {
              asked.incrementAndGet();
              await(release);
              return 7;
            },
            calls,
            Duration.ofHours(1),
            Duration.ofHours(1));

    assertTrue(answer.get(Duration.ZERO).isEmpty(), "no answer yet");
    assertTrue(answer.get(Duration.ZERO).isEmpty(), "still none");
    release.countDown();

    assertEquals(Optional.of(7), answer.get(Duration.ofSeconds(5)));
    assertEquals(1, asked.get(), "one call answered all three");
  }

  @Test
  void aFailedCallIsNoAnswerAndTheNextCallerAsksAgain() {
    SharedAnswer<Integer> answer =
        new SharedAnswer<>(
            () -> {
              if (asked.incrementAndGet() == 1) {
                throw new IllegalStateException("Temporal away");
              }
              return 2;
            },
            calls,
            Duration.ofHours(1),
            Duration.ofHours(1));

    assertTrue(answer.get(Duration.ofSeconds(5)).isEmpty());
    assertEquals(Optional.of(2), answer.get(Duration.ofSeconds(5)));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
