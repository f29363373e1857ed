package dev.rota.core.model;

import java.util.Optional;

/**
 * How much a namespace's VMs may hold between them (Kubernetes' resource quotas, Nomad's quota
 * specifications): cores, MiB of memory, VMs and GiB of root disk; null for no limit. A VM counts
 * from its submission until it is deleted, stopped or not, so that starting a stopped VM again
 * never breaks a quota; the scheduler places a VM only while the VMs of its namespace on workers
 * leave room for it, so that a quota lowered below what is held lets no more run than it allows.
 */
public record Quota(Long cpu, Long memory, Long vms, Long diskGi) {
  public static final Quota NONE = new Quota(null, null, null, null);

  /** Whether it limits anything. */
  public boolean limits() {
    return cpu != null || memory != null || vms != null || diskGi != null;
  }

  /**
   * The first limit that {@code used} and {@code asked} together pass, said as a person reads it
   * ({@code cpu quota of 8: 6 in use, 4 asked}), or empty when every one leaves room. A limit
   * already passed (a quota lowered) is passed by anything more it is asked.
   */
  public Optional<String> breach(NamespaceUsage used, NamespaceUsage asked) {
    return breach(used, asked, "in use");
  }

  /** As {@link #breach(NamespaceUsage, NamespaceUsage)}, {@code used} said to be {@code held}. */
  public Optional<String> breach(NamespaceUsage used, NamespaceUsage asked, String held) {
    return first(
        check("cpu", cpu, used.cpu(), asked.cpu(), "", held),
        check("memory", memory, used.memory(), asked.memory(), " MiB", held),
        check("vms", vms, used.vms(), asked.vms(), "", held),
        check("disk", diskGi, used.diskGi(), asked.diskGi(), " GiB", held));
  }

  @SafeVarargs
  private static Optional<String> first(Optional<String>... checks) {
    for (Optional<String> check : checks) {
      if (check.isPresent()) {
        return check;
      }
    }
    return Optional.empty();
  }

  private static Optional<String> check(
      String name, Long limit, long used, long asked, String unit, String held) {
    if (limit == null || asked <= 0 || used + asked <= limit) {
      return Optional.empty();
    }
    return Optional.of(
        name
            + " quota of "
            + limit
            + unit
            + ": "
            + used
            + unit
            + " "
            + held
            + ", "
            + asked
            + unit
            + " more asked");
  }
}
