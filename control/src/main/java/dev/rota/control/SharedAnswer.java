package dev.rota.control;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A question that many callers ask at once and one call answers for all: at most one call is under
 * way, an answer is reused while it is fresh, and a call that hangs is given up after a while so
 * that the next caller asks again. Each caller waits only as long as it chooses.
 */
final class SharedAnswer<T> {
  private static final Logger log = LoggerFactory.getLogger(SharedAnswer.class);

  private final Supplier<T> ask;
  private final ExecutorService calls;
  private final Duration fresh;
  private final Duration givenUp;

  /** The call under way, when it began, the last answer and when it came; guarded by this. */
  private Future<T> asking;

  private long askedAt;
  private T last;
  private long lastAt;

  SharedAnswer(Supplier<T> ask, ExecutorService calls, Duration fresh, Duration givenUp) {
    this.ask = ask;
    this.calls = calls;
    this.fresh = fresh;
    this.givenUp = givenUp;
  }

  /** The answer if it comes within {@code deadline}; empty if it does not or the call failed. */
  Optional<T> get(Duration deadline) {
    Future<T> call;
    synchronized (this) {
      long now = System.nanoTime();
      if (last != null && now - lastAt < fresh.toNanos()) {
        return Optional.of(last);
      }
      if (asking != null && !asking.isDone() && now - askedAt > givenUp.toNanos()) {
        asking.cancel(true);
      }
      if (asking == null || asking.isDone()) {
        try {
          asking = calls.submit(this::askAndKeep);
          askedAt = now;
        } catch (RejectedExecutionException e) {
          return Optional.empty();
        }
      }
      call = asking;
    }
    try {
      return Optional.ofNullable(call.get(deadline.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException | CancellationException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      log.debug("a shared question failed: {}", e.getCause().toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private T askAndKeep() {
    T answer = ask.get();
    synchronized (this) {
      last = answer;
      lastAt = System.nanoTime();
    }
    return answer;
  }
}
