package dev.rota.core.scheduling.placement;

import java.util.Map;
import java.util.function.ToLongFunction;

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
    return Shortfall.of(request, mostFree, "the most free on a matching worker is", "")
        .orElse(
            "needs "
                + Shortfall.pairs(request)
                + " together; no matching worker has all of it free");
  }
}
