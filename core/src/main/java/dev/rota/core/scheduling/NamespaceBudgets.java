package dev.rota.core.scheduling;

import dev.rota.core.model.NamespaceUsage;
import dev.rota.core.model.Quota;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What each namespace's quota leaves for a term's placements: its VMs on workers hold their part,
 * and each VM placed takes its own. A submission is checked against the quota already; this keeps a
 * quota lowered below what is held (or a VM started again after one was lowered) from running more
 * than it allows.
 */
public final class NamespaceBudgets {
  private final Map<String, Quota> quotas;
  private final Map<String, NamespaceUsage> held = new HashMap<>();

  /** Over {@code quotas} by namespace (one left out has none), nothing held yet. */
  public NamespaceBudgets(Map<String, Quota> quotas) {
    Map<String, Quota> limiting = new HashMap<>();
    quotas.forEach(
        (namespace, quota) -> {
          if (quota.limits()) {
            limiting.put(namespace, quota);
          }
        });
    this.quotas = Map.copyOf(limiting);
  }

  /** No quota anywhere: every VM may be placed as far as its namespace goes. */
  public static NamespaceBudgets none() {
    return new NamespaceBudgets(Map.of());
  }

  /**
   * Whether {@code namespace}'s quota limits anything: only then is what its VMs hold counted (a
   * term counts thousands of VMs, most often in namespaces without one).
   */
  public boolean limits(String namespace) {
    return quotas.containsKey(namespace);
  }

  /** Counts {@code vm}, which holds a worker, against its namespace. */
  public void take(VmSnapshot vm) {
    if (limits(vm.namespace())) {
      take(vm.namespace(), vm.usage());
    }
  }

  /** Counts {@code vm}, placed this term, against its namespace. */
  public void take(PendingVm vm) {
    if (limits(vm.namespace())) {
      take(vm.namespace(), vm.usage());
    }
  }

  /** Counts {@code usage}, what VMs of {@code namespace} hold, against it. */
  void take(String namespace, NamespaceUsage usage) {
    held.merge(namespace, usage, NamespaceUsage::plus);
  }

  /** Why {@code vm} may not be placed now, its namespace's quota taken; empty when it may. */
  public Optional<String> refusal(PendingVm vm) {
    Quota quota = quotas.get(vm.namespace());
    if (quota == null) {
      return Optional.empty();
    }
    return quota
        .breach(held.getOrDefault(vm.namespace(), NamespaceUsage.NONE), vm.usage(), "running")
        .map(why -> "waits for room in namespace " + vm.namespace() + "'s quota: " + why);
  }
}
