package dev.rota.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU this JVM's threads took between two moments, summed by kind of thread (a name with its
 * numbers taken out: {@code agent-dev-17-http-3} is {@code agent-dev-#-http-#}): where a burst's
 * CPU went, without a profiler's overhead. Threads that ended in between are not counted.
 */
final class ThreadCpu {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> atStart;

  private ThreadCpu(Map<Long, Long> atStart) {
    this.atStart = atStart;
  }

  static ThreadCpu now() {
    ThreadCpu t = new ThreadCpu(new HashMap<>());
    t.atStart.putAll(t.cpuById());
    return t;
  }

  /**
   * Milliseconds of CPU per VM by kind of thread, the largest first, those under 2% of the total as
   * "other".
   */
  Map<String, Double> millisPerVmSince(int vms) {
    return perUnitSince(vms);
  }

  /**
   * Milliseconds of CPU per second of {@code elapsed}, by kind of thread, as {@link
   * #millisPerVmSince}.
   */
  Map<String, Double> millisPerSecondSince(java.time.Duration elapsed) {
    return perUnitSince(elapsed.toMillis() / 1000.0);
  }

  private Map<String, Double> perUnitSince(double units) {
    Map<Long, Long> now = cpuById();
    Map<String, Long> byKind = new HashMap<>();
    long total = 0;
    for (ThreadInfo info :
        threads.getThreadInfo(now.keySet().stream().mapToLong(Long::longValue).toArray())) {
      if (info == null) {
        continue;
      }
      long spent = now.get(info.getThreadId()) - atStart.getOrDefault(info.getThreadId(), 0L);
      byKind.merge(info.getThreadName().replaceAll("\\d+", "#"), spent, Long::sum);
      total += spent;
    }
    long floor = total / 50;
    Map<String, Double> out = new LinkedHashMap<>();
    long other = 0;
    for (Map.Entry<String, Long> e :
        byKind.entrySet().stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .toList()) {
      if (e.getValue() < floor) {
        other += e.getValue();
      } else {
        out.put(e.getKey(), per(e.getValue(), units));
      }
    }
    out.put("other", per(other, units));
    return out;
  }

  private static double per(long nanos, double units) {
    return Math.round(nanos / 1e5 / units) / 10.0;
  }

  private Map<Long, Long> cpuById() {
    Map<Long, Long> cpu = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      long nanos = threads.getThreadCpuTime(id);
      if (nanos >= 0) {
        cpu.put(id, nanos);
      }
    }
    return cpu;
  }
}
