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
        // Refused by a limit, as read now; or by one that a commit since has freed again.
        throw refusal(e.getKey(), u)
            .orElseGet(
                () ->
                    new QuotaExceeded(
                        "namespace " + e.getKey() + ": its quota was taken meanwhile"));
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
    refusal(namespace, asked)
        .ifPresent(
            refused -> {
              throw refused;
            });
  }

  /** Why {@code asked} more would pass {@code namespace}'s quota, read once; empty if it fits. */
  private java.util.Optional<QuotaExceeded> refusal(String namespace, NamespaceUsage asked) {
    NamespaceRow row = namespaces.findById(namespace).orElseThrow(() -> missing(namespace));
    return row.quota()
        .breach(row.used(), asked)
        .map(why -> new QuotaExceeded("namespace " + namespace + ": " + why));
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
