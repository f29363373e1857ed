package dev.rota.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting, in real time, for something another thread or process does: the one way Rota's tests
 * wait outside skipped time. The bound is patience, not a timing claim: a condition that holds
 * returns at once, and only one that never holds costs the whole bound.
 */
public final class Eventually {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private Eventually() {}

  public static void eventually(String what, BooleanSupplier condition) {
    eventually(what, PATIENCE, condition);
  }

  public static void eventually(String what, Duration patience, BooleanSupplier condition) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never happened within " + patience.toSeconds() + " s: " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
