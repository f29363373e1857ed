package dev.rota.scheduler.temporal;

import dev.rota.scheduler.DaemonThreads;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Calls to Temporal on the caller's thread with a gRPC deadline, which the SDK's retries honour:
 * past it the call fails with DEADLINE_EXCEEDED, where the SDK would otherwise retry an unreachable
 * server for a minute. For a request that must answer (503) and for a background start that must
 * not hold its thread.
 */
@Singleton
public class TemporalDeadlines {
  /**
   * The deadlines' timers; each is cancelled when its call returns, and then leaves the queue at
   * once.
   */
  private final ScheduledThreadPoolExecutor timers = timers();

  private static ScheduledThreadPoolExecutor timers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("temporal-deadline"));
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }

  /**
   * Runs {@code calls} with a deadline of {@code deadline} for every call to Temporal they make.
   */
  public <T> T within(Duration deadline, Supplier<T> calls) {
    io.grpc.Context.CancellableContext context =
        io.grpc.Context.current()
            .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS, timers);
    io.grpc.Context previous = context.attach();
    try {
      return calls.get();
    } finally {
      context.detach(previous);
      context.cancel(null);
    }
  }

  @jakarta.annotation.PreDestroy
  void close() {
    timers.shutdownNow();
  }
}
