package dev.rota.control;

import dev.rota.core.model.NamespaceUsage;
import dev.rota.store.NamespaceRepository;
import dev.rota.store.NamespaceRow;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.TreeMap;

/**
 * What VMs hold against their namespaces' quotas, counted in the transaction that stores or removes
 * them ({@link VmSubmissions}): a submission that would pass a limit stores nothing ({@link
 * QuotaExceeded}). Namespaces are charged in the order of their names, so that two transactions
 * charging the same ones cannot deadlock.
 */
@Singleton
public class NamespaceQuotas {
  private final NamespaceRepository namespaces;

  public NamespaceQuotas(NamespaceRepository namespaces) {
    this.namespaces = namespaces;
  }

  /** Counts {@code asked} (by namespace) against each quota, or throws naming the limit passed. */
  public void charge(Map<String, NamespaceUsage> asked) {
    for (Map.Entry<String, NamespaceUsage> e : new TreeMap<>(asked).entrySet()) {
      NamespaceUsage u = e.getValue();
      if (namespaces.charge(e.getKey(), u.cpu(), u.memory(), u.vms(), u.diskGi()) == 0) {
        throw refusal(e.getKey(), u);
      }
    }
  }

  /** Takes what removed VMs held (by namespace) off each count. */
  public void release(Map<String, NamespaceUsage> held) {
    for (Map.Entry<String, NamespaceUsage> e : new TreeMap<>(held).entrySet()) {
      NamespaceUsage u = e.getValue();
      namespaces.release(e.getKey(), u.cpu(), u.memory(), u.vms(), u.diskGi());
    }
  }

  /**
   * Throws unless {@code asked} more would fit {@code namespace}'s quota as things stand, without
   * counting it: a set's check before its replicas are made.
   */
  public void check(String namespace, NamespaceUsage asked) {
    NamespaceRow row = namespaces.findById(namespace).orElseThrow(() -> missing(namespace));
    if (row.quota().breach(row.used(), asked).isPresent()) {
      throw refusal(namespace, asked);
    }
  }

  private QuotaExceeded refusal(String namespace, NamespaceUsage asked) {
    NamespaceRow row = namespaces.findById(namespace).orElseThrow(() -> missing(namespace));
    return new QuotaExceeded(
        "namespace "
            + namespace
            + ": "
            + row.quota().breach(row.used(), asked).orElse("its quota was taken meanwhile"));
  }

  private static NotFound missing(String namespace) {
    return new NotFound("namespace", namespace);
  }

  /** Each namespace's part of {@code usages}, summed. */
  public static Map<String, NamespaceUsage> byNamespace(
      Iterable<Map.Entry<String, NamespaceUsage>> usages) {
    Map<String, NamespaceUsage> sum = new TreeMap<>();
    usages.forEach(e -> sum.merge(e.getKey(), e.getValue(), NamespaceUsage::plus));
    return sum;
  }

  /** The namespace {@code name} as stored; the default one when null. */
  public static String orDefault(String name) {
    return name == null ? NamespaceRow.DEFAULT : name;
  }
}
