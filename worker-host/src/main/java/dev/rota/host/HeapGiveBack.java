package dev.rota.host;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Has the collector give back heap the host no longer uses: a collection every 10 s while it is
 * idle, and the heap shrunk to keep 10 to 30% free (the JVM's defaults, 40 to 70%, keep most of
 * what its largest burst took). Without it a host's resident memory stayed at its largest burst's.
 * The options are ones a running JVM takes, so the host sets them itself, whichever way it was
 * started (`bin/rota`, a container, `java -jar`); an option the JVM was started with is its
 * operator's and stays as given.
 */
final class HeapGiveBack {
  /** In the order they are set: the lower bound first, as the upper may not go below it. */
  static final List<Map.Entry<String, String>> OPTIONS =
      List.of(
          Map.entry("MinHeapFreeRatio", "10"),
          Map.entry("MaxHeapFreeRatio", "30"),
          Map.entry("G1PeriodicGCInterval", "10000"));

  private HeapGiveBack() {}

  /** Sets each option the JVM was not started with; what it set, as {@code name=value}. */
  static List<String> apply(HotSpotDiagnosticMXBean jvm) {
    List<String> set = new ArrayList<>();
    for (Map.Entry<String, String> option : OPTIONS) {
      if (jvm.getVMOption(option.getKey()).getOrigin() == VMOption.Origin.DEFAULT) {
        try {
          jvm.setVMOption(option.getKey(), option.getValue());
          set.add(option.getKey() + "=" + option.getValue());
        } catch (IllegalArgumentException e) {
          // Out of range beside one the operator gave (a MinHeapFreeRatio above 30): theirs stands.
        }
      }
    }
    return set;
  }

  static List<String> apply() {
    return apply(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class));
  }
}
