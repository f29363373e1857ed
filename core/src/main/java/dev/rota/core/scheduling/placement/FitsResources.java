package dev.rota.core.scheduling.placement;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * A worker takes a VM only with every requested resource free. Decided as VMs are placed, since
 * each placement changes what is free: the placer's fit trees find the first worker with room.
 */
public final class FitsResources {
  /**
   * Why no worker of the VM's class has room for {@code request}.
   *
   * @param mostFree the most of a resource free on any worker of the class
   */
  public String whyNone(Map<String, Long> request, ToLongFunction<String> mostFree) {
    Map<String, Long> sorted = new TreeMap<>(request);
    java.util.Optional<String> shortOf =
        Shortfall.of(sorted, mostFree, "the most free on a matching worker is", "");
    if (shortOf.isPresent()) {
      return shortOf.get();
    }
    return "needs "
        + sorted.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "))
        + " together; no matching worker has all of it free";
  }
}
