package dev.rota.scheduler.term;

import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The real notifier, except that a test can make the next signals to a VM's workflow fail. */
@Singleton
@Replaces(VmNotifier.class)
@Requires(property = FailingNotifier.ENABLED, value = "true")
public class FailingNotifier extends VmNotifier {
  /** A test that wants it sets this property; others keep their own notifier. */
  public static final String ENABLED = "rota.test.failing-notifier";

  private final Map<String, AtomicInteger> failuresLeft = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> failed = new ConcurrentHashMap<>();

  public FailingNotifier(
      dev.rota.scheduler.temporal.WorkflowStubs workflows,
      VmRepository vms,
      dev.rota.store.OutboxRepository outbox,
      dev.rota.store.WorkflowStartRepository starts,
      dev.rota.scheduler.temporal.TemporalDeadlines deadlines) {
    super(workflows, vms, outbox, starts, deadlines);
  }

  /**
   * The next {@code times} signals to {@code vm}'s workflow fail, as when Temporal cannot be
   * reached.
   */
  public void failNext(String vm, int times) {
    failuresLeft.put(vm, new AtomicInteger(times));
  }

  public int failed(String vm) {
    return failed.getOrDefault(vm, new AtomicInteger()).get();
  }

  @Override
  public java.util.List<Long> notify(OutboxRow news) {
    AtomicInteger left = failuresLeft.get(news.vm());
    if (left != null && left.getAndDecrement() > 0) {
      failed.computeIfAbsent(news.vm(), k -> new AtomicInteger()).incrementAndGet();
      throw new IllegalStateException("UNAVAILABLE: cannot reach Temporal");
    }
    return super.notify(news);
  }
}
