package dev.rota.store;

import dev.rota.core.model.NamespaceUsage;
import dev.rota.core.model.Quota;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.MappedProperty;
import java.time.Instant;

/**
 * A namespace: its quota (null limits: none) and what its VMs hold against it, counted as each VM
 * is stored and removed ({@code VmSubmissions}).
 */
@MappedEntity("namespaces")
public record NamespaceRow(
    @Id String name,
    @Nullable String description,
    @MappedProperty("quota_cpu") @Nullable Long quotaCpu,
    @MappedProperty("quota_memory") @Nullable Long quotaMemory,
    @MappedProperty("quota_vms") @Nullable Long quotaVms,
    @MappedProperty("quota_disk_gi") @Nullable Long quotaDiskGi,
    @MappedProperty("used_cpu") long usedCpu,
    @MappedProperty("used_memory") long usedMemory,
    @MappedProperty("used_vms") long usedVms,
    @MappedProperty("used_disk_gi") long usedDiskGi,
    Instant createdAt,
    Instant updatedAt) {
  /** Where what names no namespace lives; it always exists. */
  public static final String DEFAULT = "default";

  /** A new namespace, holding nothing yet. */
  public static NamespaceRow created(
      String name, @Nullable String description, Quota quota, Instant now) {
    return new NamespaceRow(
        name,
        description,
        quota.cpu(),
        quota.memory(),
        quota.vms(),
        quota.diskGi(),
        0,
        0,
        0,
        0,
        now,
        now);
  }

  public Quota quota() {
    return new Quota(quotaCpu, quotaMemory, quotaVms, quotaDiskGi);
  }

  public NamespaceUsage used() {
    return new NamespaceUsage(usedCpu, usedMemory, usedVms, usedDiskGi);
  }
}
