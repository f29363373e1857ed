package dev.rota.control;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A call many may ask for at once, made on one thread at a time: asked while it is being made, it
 * is made once more afterwards, however many asked meanwhile. Every asking is followed by a call
 * that begins after it, as if each had made its own.
 */
final class OnceMore {
  private static final Logger log = LoggerFactory.getLogger(OnceMore.class);
  private final Executor executor;
  private final Runnable call;

  /** Askings not yet answered by a call begun after them; above zero, a thread is making calls. */
  private final AtomicInteger asked = new AtomicInteger();

  OnceMore(Executor executor, Runnable call) {
    this.executor = executor;
    this.call = call;
  }

  /**
   * Makes the call soon, on the executor. {@link RejectedExecutionException} if the executor takes
   * nothing more; the askings that came meanwhile are then dropped with this one.
   */
  void ask() {
    if (asked.getAndIncrement() > 0) {
      return; // the thread making calls makes one more
    }
    try {
      executor.execute(this::callWhileAsked);
    } catch (RejectedExecutionException e) {
      asked.set(0);
      throw e;
    }
  }

  private void callWhileAsked() {
    int answered;
    do {
      answered = asked.get();
      try {
        call.run();
      } catch (RuntimeException e) {
        // Counted as made: a call that failed must not stop the ones asked after it.
        log.warn("a call failed: {}", e.toString());
      }
    } while (asked.addAndGet(-answered) > 0);
  }
}
