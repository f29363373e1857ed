package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class HeapGiveBackTest {
  /** A JVM's options as the management bean shows them, with the JVM's check of the ratios. */
  static final class Options implements HotSpotDiagnosticMXBean {
    final Map<String, VMOption> options = new HashMap<>();

    Options(Map<String, String> givenAtStart) {
      Map<String, String> defaults =
          Map.of("MinHeapFreeRatio", "40", "MaxHeapFreeRatio", "70", "G1PeriodicGCInterval", "0");
      defaults.forEach(
          (name, value) ->
              options.put(
                  name,
                  givenAtStart.containsKey(name)
                      ? new VMOption(
                          name, givenAtStart.get(name), true, VMOption.Origin.VM_CREATION)
                      : new VMOption(name, value, true, VMOption.Origin.DEFAULT)));
    }

    int value(String name) {
      return Integer.parseInt(options.get(name).getValue());
    }

    @Override
    public VMOption getVMOption(String name) {
      return options.get(name);
    }

    @Override
    public void setVMOption(String name, String value) {
      int v = Integer.parseInt(value);
      if ((name.equals("MaxHeapFreeRatio") && v < value("MinHeapFreeRatio"))
          || (name.equals("MinHeapFreeRatio") && v > value("MaxHeapFreeRatio"))) {
        throw new IllegalArgumentException(name + " out of range");
      }
      options.put(name, new VMOption(name, value, true, VMOption.Origin.MANAGEMENT));
    }

    @Override
    public void dumpHeap(String outputFile, boolean live) {}

    @Override
    public List<VMOption> getDiagnosticOptions() {
      return List.copyOf(options.values());
    }

    @Override
    public ObjectName getObjectName() {
      return null;
    }
  }

  @Test
  void theHostSetsEveryOptionTheJvmWasNotStartedWith() {
    Options jvm = new Options(Map.of());
    assertEquals(
        List.of("MinHeapFreeRatio=10", "MaxHeapFreeRatio=30", "G1PeriodicGCInterval=10000"),
        HeapGiveBack.apply(jvm));
    assertEquals(10, jvm.value("MinHeapFreeRatio"));
    assertEquals(30, jvm.value("MaxHeapFreeRatio"));
  }

  @Test
  void anOptionTheOperatorGaveStandsAndOneThatWouldClashWithItIsLeft() {
    Options given = new Options(Map.of("MaxHeapFreeRatio", "50"));
    assertEquals(
        List.of("MinHeapFreeRatio=10", "G1PeriodicGCInterval=10000"), HeapGiveBack.apply(given));
    assertEquals(50, given.value("MaxHeapFreeRatio"));

    Options clashing = new Options(Map.of("MinHeapFreeRatio", "50", "MaxHeapFreeRatio", "90"));
    assertEquals(List.of("G1PeriodicGCInterval=10000"), HeapGiveBack.apply(clashing));
    Options minOnly = new Options(Map.of("MinHeapFreeRatio", "50"));
    assertEquals(
        List.of("G1PeriodicGCInterval=10000"),
        HeapGiveBack.apply(minOnly),
        "a ratio of 30 below the operator's 50 is refused, and theirs stands");
    assertEquals(50, minOnly.value("MinHeapFreeRatio"));
  }

  @Test
  void theRealJvmTakesThem() {
    HeapGiveBack.apply();
    HotSpotDiagnosticMXBean jvm =
        java.lang.management.ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    for (Map.Entry<String, String> option : HeapGiveBack.OPTIONS) {
      VMOption now = jvm.getVMOption(option.getKey());
      if (now.getOrigin() != VMOption.Origin.VM_CREATION) {
        assertEquals(option.getValue(), now.getValue(), option.getKey());
      }
    }
  }
}
