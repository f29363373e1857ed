package dev.rota.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;

/**
 * The Java heap a burst took, for this JVM as a whole: the host with its agents and, in dev mode,
 * the embedded Temporal server. An upper bound of the host's own: the harness's agents share the
 * heap.
 */
final class HeapPeak {
  private final List<MemoryPoolMXBean> pools;

  private HeapPeak(List<MemoryPoolMXBean> pools) {
    this.pools = pools;
  }

  /** Peaks counted from now on. */
  static HeapPeak fromNow() {
    List<MemoryPoolMXBean> heap =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP)
            .toList();
    heap.forEach(MemoryPoolMXBean::resetPeakUsage);
    return new HeapPeak(heap);
  }

  /**
   * The sum of each heap pool's peak since {@link #fromNow}: pools peak at different moments, so
   * this is at or above the heap's own peak.
   */
  long peakMiB() {
    return pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum() / (1024 * 1024);
  }

  /** The heap in use after a full collection now: what the JVM holds live, garbage aside. */
  long liveMiB() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
  }
}
