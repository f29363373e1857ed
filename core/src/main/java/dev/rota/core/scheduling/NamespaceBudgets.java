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
    this.quotas = Map.copyOf(quotas);
  }

  /** No quota anywhere: every VM may be placed as far as its namespace goes. */
  public static NamespaceBudgets none() {
    return new NamespaceBudgets(Map.of());
  }

  /** Counts {@code usage}, a VM that holds a worker, against {@code namespace}. */
  public void take(String namespace, NamespaceUsage usage) {
    held.merge(namespace, usage, NamespaceUsage::plus);
  }

  /** Why {@code vm} may not be placed now, its namespace's quota taken; empty when it may. */
  public Optional<String> refusal(PendingVm vm) {
    Quota quota = quotas.get(vm.namespace());
    if (quota == null || !quota.limits()) {
      return Optional.empty();
    }
    return quota
        .breach(held.getOrDefault(vm.namespace(), NamespaceUsage.NONE), vm.usage(), "running")
        .map(why -> "waits for room in namespace " + vm.namespace() + "'s quota: " + why);
  }
}
