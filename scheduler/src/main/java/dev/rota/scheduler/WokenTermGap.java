package dev.rota.scheduler;

import dev.rota.scheduler.settings.SchedulerSettings;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Spaces the terms wake-ups bring ({@code rota.scheduler.woken-term-gap}): a term woken less than
 * the gap after this host's last term ended waits out the rest before it observes. A burst of
 * single submissions wakes the scheduler again during every term; without the gap each term would
 * place the few VMs that came while the one before ran, paying a term's fixed cost (every worker
 * read, the agents' task lists, the term's own workflow task and activity on the Temporal server)
 * for each few. A wake-up after a quiet while begins its term at once.
 */
@Singleton
public class WokenTermGap {
  private final long gapNanos;
  private final LongSupplier nanos;
  private final LongConsumer park;

  /** When this host's last term ended; none yet is long ago. */
  private final AtomicLong lastEnded;

  @Inject
  public WokenTermGap(SchedulerSettings settings) {
    this(settings.wokenTermGap().toNanos(), System::nanoTime, LockSupport::parkNanos);
  }

  WokenTermGap(long gapNanos, LongSupplier nanos, LongConsumer park) {
    this.gapNanos = gapNanos;
    this.nanos = nanos;
    this.park = park;
    this.lastEnded = new AtomicLong(nanos.getAsLong() - gapNanos);
  }

  /** Before a woken term: returns once the gap since the last term's end has passed. */
  public void beforeWokenTerm() {
    long left;
    while ((left = lastEnded.get() + gapNanos - nanos.getAsLong()) > 0) {
      park.accept(left);
    }
  }

  /** A term ended, however it ended. */
  public void termEnded() {
    lastEnded.set(nanos.getAsLong());
  }
}
