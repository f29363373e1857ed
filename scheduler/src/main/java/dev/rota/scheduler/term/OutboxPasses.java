package dev.rota.scheduler.term;

import dev.rota.store.OutboxRepository;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the apply step's passes share: their tally, and how a batch's done actions leave the outbox.
 */
final class OutboxPasses {
  private OutboxPasses() {}

  /** What a pass carried out, counted from many threads. */
  static final class Tally {
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger removed = new AtomicInteger();
    final AtomicInteger notified = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();

    /** Whether a removal freed room a VM may wait for: the scheduler is woken once for all. */
    final java.util.concurrent.atomic.AtomicBoolean roomFreed =
        new java.util.concurrent.atomic.AtomicBoolean();
  }

  /**
   * Taken out together, one statement for the batch: should this process die first, the starts are
   * sent again (an agent takes a task it has once) and the news too (a workflow applies it once).
   */
  static void takeOut(OutboxRepository actions, Queue<Long> done) {
    if (!done.isEmpty()) {
      actions.doneAll(List.copyOf(done));
    }
  }

  static void awaitAll(List<Future<?>> futures) {
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("applying an action failed", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while applying actions", e);
      }
    }
  }
}
