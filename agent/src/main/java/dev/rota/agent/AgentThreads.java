package dev.rota.agent;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads an agent works on: timers (heartbeats, task reports, synthetic tasks' starts), which
 * also make the blocking calls to the controller, and the pool that serves the task API. An agent
 * process has its own; the agents of one process (dev mode's) share one set, since a thousand
 * agents with a dozen threads each made every thread hand-off in that process cost several times
 * more (the kernel's futex wake-ups took a third of the CPU at 1,000 workers against a tenth at
 * 100).
 */
public record AgentThreads(
    ScheduledExecutorService timers, ExecutorService requests, ExecutorService checks)
    implements AutoCloseable {
  private static final java.time.Duration WIND_DOWN = java.time.Duration.ofSeconds(10);

  /**
   * One agent's own: two timers, and 8 request threads with 64 requests waiting (see {@link
   * #requestPool}).
   */
  public static AgentThreads of(String workerName) {
    return create("agent-" + workerName, 2, 8, 64);
  }

  /**
   * For {@code agents} agents of one process, sized as up to 8 agents of their own, with twice
   * their timers, since one agent's blocking call to a slow controller must not hold up the others'
   * heartbeats: at most 32 timer and 64 request threads.
   */
  public static AgentThreads sharedBy(int agents) {
    int busy = Math.min(Math.max(agents, 1), 8);
    return create("agents", 4 * busy, 8 * busy, 64 * busy);
  }

  private static AgentThreads create(String prefix, int timers, int requests, int waiting) {
    return new AgentThreads(
        Executors.newScheduledThreadPool(timers, daemon(prefix + "-timer")),
        requestPool(prefix, requests, waiting),
        // Tasks' health checks, each waiting up to its timeout: apart from the task API's threads.
        Executors.newCachedThreadPool(daemon(prefix + "-check")));
  }

  /**
   * Bounded: past the requests at work and those waiting, the server's own thread answers the next
   * request itself and stops accepting meanwhile, so that a flood of requests (the secret's check
   * comes first) waits in the kernel's backlog, not in this process's memory.
   */
  private static ExecutorService requestPool(String prefix, int threads, int waiting) {
    return new ThreadPoolExecutor(
        threads,
        threads,
        0,
        TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(waiting),
        daemon(prefix + "-http"),
        new ThreadPoolExecutor.CallerRunsPolicy());
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Interrupts the work at hand and waits (up to {@link #WIND_DOWN} each) for it to end: a guest's
   * boot or an image's fetch goes on writing in the agent's folder otherwise, after the agent was
   * told to stop, and whoever stopped it (dev mode, a test) may be removing that folder.
   */
  @Override
  public void close() {
    List<ExecutorService> pools = List.of(timers, requests, checks);
    pools.forEach(ExecutorService::shutdownNow);
    for (ExecutorService pool : pools) {
      try {
        pool.awaitTermination(WIND_DOWN.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
