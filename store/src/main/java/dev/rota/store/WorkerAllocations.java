package dev.rota.store;

import dev.rota.core.model.VmStatus;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/** What the VMs placed on each worker hold, as the API shows it and the metrics gauge it. */
@Singleton
public class WorkerAllocations {
  private final VmRepository vms;

  public WorkerAllocations(VmRepository vms) {
    this.vms = vms;
  }

  /** By worker, for those of {@code names} that hold any VM; one query. */
  public Map<String, Allocation> of(Collection<String> names) {
    Map<String, Allocation> result = new HashMap<>();
    if (names.isEmpty()) {
      return result;
    }
    for (VmRow vm : vms.onWorkersIn(names, VmStatus.HOLDING_WORKER)) {
      String worker = Objects.requireNonNull(vm.state().worker());
      result.put(worker, result.getOrDefault(worker, Allocation.NONE).plus(vm.spec().resources()));
    }
    return result;
  }

  /**
   * By worker, for those of {@code names} that hold any, the VMs whose persistent disks they hold,
   * by name; one query.
   */
  public Map<String, java.util.List<String>> disks(Collection<String> names) {
    Map<String, java.util.List<String>> result = new HashMap<>();
    if (names.isEmpty()) {
      return result;
    }
    for (VmRow vm : vms.withDisksOn(names)) {
      result.computeIfAbsent(vm.notes().diskOn(), w -> new java.util.ArrayList<>()).add(vm.name());
    }
    return result;
  }
}
