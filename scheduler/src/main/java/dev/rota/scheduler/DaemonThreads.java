package dev.rota.scheduler;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the host's own pools: named for what they do (as thread dumps and CPU figures show
 * them), never keeping the JVM alive.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Every thread named {@code name}. */
  public static ThreadFactory named(String name) {
    return r -> daemon(r, name);
  }

  /** Threads named {@code prefix-1}, {@code prefix-2}, ... */
  public static ThreadFactory numbered(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> daemon(r, prefix + "-" + n.incrementAndGet());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
