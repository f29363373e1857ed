package dev.rota.store;

import dev.rota.core.scheduling.Resources;
import java.util.Map;

/** What the VMs placed on one worker hold. */
public record Allocation(Map<String, Long> resources, int vmCount) {
  public static final Allocation NONE = new Allocation(Map.of(), 0);

  /**
   * This allocation with one more VM's request added, with the scheduler's saturating arithmetic.
   */
  public Allocation plus(Map<String, Long> request) {
    return new Allocation(Resources.plus(resources, request), vmCount + 1);
  }
}
