package dev.rota.core.scheduling;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many more of each set's replicas may be moved now. A move starts the new copy before the old
 * one goes, so it takes nothing away unless the new copy fails; that risk is what a set's {@code
 * maxUnavailable} bounds: the replicas it may have away are those missing (not running, or running
 * but not yet ready) and those being moved. A move counts until its old copy is gone, so {@code
 * maxUnavailable} also bounds how many of a set's replicas have two copies at once.
 */
public final class SetAllowances {
  private SetAllowances() {}

  /**
   * @return by set, for every set in {@code sets}: at most 0 when none may move
   */
  public static Map<String, Integer> of(List<VmSnapshot> vms, Map<String, SetSnapshot> sets) {
    Map<String, Integer> running = new HashMap<>();
    Map<String, Integer> moving = new HashMap<>();
    for (VmSnapshot vm : vms) {
      if (vm.set() == null) {
        continue;
      }
      if (vm.available()) {
        running.merge(vm.set(), 1, Integer::sum);
      }
      if (vm.moveUnderWay()) {
        moving.merge(vm.set(), 1, Integer::sum);
      }
    }
    Map<String, Integer> allowance = new HashMap<>();
    sets.forEach(
        (name, set) -> {
          int missing = Math.max(0, set.replicas() - running.getOrDefault(name, 0));
          allowance.put(name, set.maxUnavailable() - missing - moving.getOrDefault(name, 0));
        });
    return allowance;
  }
}
