package dev.rota.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micronaut.data.exceptions.OptimisticLockException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConflictsTest {
  @Test
  void aWriteThatLostToTheSchedulerIsReadAgainAndReapplied() {
    AtomicInteger tries = new AtomicInteger();
    String result =
        Conflicts.retry(
            () -> {
              if (tries.incrementAndGet() < 3) {
                throw new OptimisticLockException("stale version");
              }
              return "applied";
            });
    assertEquals("applied", result);
    assertEquals(3, tries.get());
  }

  @Test
  void aWriteThatKeepsLosingGivesUpWithTheConflict() {
    AtomicInteger tries = new AtomicInteger();
    assertThrows(
        OptimisticLockException.class,
        () ->
            Conflicts.retry(
                () -> {
                  tries.incrementAndGet();
                  throw new OptimisticLockException("stale version");
                }));
    assertEquals(Conflicts.ATTEMPTS, tries.get());
  }
}
