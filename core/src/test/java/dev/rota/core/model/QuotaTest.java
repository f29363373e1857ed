package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuotaTest {
  private static Long limit(String s) {
    return s.equals("-") ? null : Long.valueOf(s);
  }

  /**
   * Limits (cpu, memory, vms, disk; - for none), what is held and what is asked (same order), and
   * the first limit passed, or - when all leave room.
   */
  @ParameterizedTest(name = "quota {0}, held {1}, asked {2}: {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        // no limits: anything goes
        "-/-/-/-   | 100/1000/10/5 | 100/1000/10/5 | -",
        // exactly to a limit is within it
        "8/-/-/-   | 6/0/1/0       | 2/512/1/0     | -",
        "8/-/-/-   | 6/0/1/0       | 3/512/1/0     | cpu quota of 8: 6 in use, 3 more asked",
        "-/1024/-/- | 0/512/1/0    | 1/513/1/0     | memory quota of 1024 MiB: 512 MiB in use, 513 MiB more asked",
        "-/-/2/-   | 0/0/2/0       | 0/0/1/0       | vms quota of 2: 2 in use, 1 more asked",
        "-/-/-/50  | 0/0/1/40      | 1/1/1/20      | disk quota of 50 GiB: 40 GiB in use, 20 GiB more asked",
        // the first limit passed is named, in the order cpu, memory, vms, disk
        "1/1/1/1   | 1/1/1/1       | 1/1/1/1       | cpu quota of 1: 1 in use, 1 more asked",
        // a quota lowered below what is held refuses more of that kind, not of others
        "2/-/-/-   | 4/0/4/0       | 1/0/1/0       | cpu quota of 2: 4 in use, 1 more asked",
        "2/-/-/-   | 4/0/4/0       | 0/64/0/0      | -",
        // giving back (a set scaled down) is never refused
        "2/-/2/-   | 4/0/4/0       | -1/0/-1/0     | -",
      })
  void theFirstLimitPassedIsNamedWithWhatIsHeldAndAsked(
      String limits, String held, String asked, String breach) {
    String[] l = limits.split("/");
    Quota quota = new Quota(limit(l[0]), limit(l[1]), limit(l[2]), limit(l[3]));
    assertEquals(
        breach.equals("-") ? java.util.Optional.empty() : java.util.Optional.of(breach),
        quota.breach(usage(held), usage(asked)));
  }

  private static NamespaceUsage usage(String s) {
    String[] n = s.split("/");
    return new NamespaceUsage(
        Long.parseLong(n[0]), Long.parseLong(n[1]), Long.parseLong(n[2]), Long.parseLong(n[3]));
  }

  @ParameterizedTest(name = "{0} with disk {1}")
  @CsvSource({"2, 2048, 20", "1, 512, "})
  void aVmHoldsItsCpuMemoryOneVmAndItsRootDisk(long cpu, long memory, Integer disk) {
    NamespaceUsage one = NamespaceUsage.of(Map.of("cpu", cpu, "memory", memory), disk);
    assertEquals(new NamespaceUsage(cpu, memory, 1, disk == null ? 0 : disk), one);
    assertEquals(new NamespaceUsage(cpu * 3, memory * 3, 3, one.diskGi() * 3), one.times(3));
    assertEquals(NamespaceUsage.NONE, one.minus(one));
  }
}
