package dev.rota.core.model;

import java.util.Map;

/**
 * What VMs of one namespace hold between them, in the units of its quota ({@link Quota}): cores,
 * MiB of memory, VMs, GiB of root disk.
 */
public record NamespaceUsage(long cpu, long memory, long vms, long diskGi) {
  public static final NamespaceUsage NONE = new NamespaceUsage(0, 0, 0, 0);

  /** One VM's: its resources, and its root disk's size (null: its image's, counted as none). */
  public static NamespaceUsage of(Map<String, Long> resources, Integer diskGi) {
    return new NamespaceUsage(
        resources.getOrDefault("cpu", 0L),
        resources.getOrDefault("memory", 0L),
        1,
        diskGi == null ? 0 : diskGi);
  }

  public NamespaceUsage plus(NamespaceUsage other) {
    return new NamespaceUsage(
        cpu + other.cpu, memory + other.memory, vms + other.vms, diskGi + other.diskGi);
  }

  public NamespaceUsage minus(NamespaceUsage other) {
    return new NamespaceUsage(
        cpu - other.cpu, memory - other.memory, vms - other.vms, diskGi - other.diskGi);
  }

  /** This many of it: a set's replicas. */
  public NamespaceUsage times(long n) {
    return new NamespaceUsage(cpu * n, memory * n, vms * n, diskGi * n);
  }
}
