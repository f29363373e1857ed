package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;

/**
 * Where a VM came from: the set (or pool) it is a replica of, and which one; and, for a VM claimed
 * from a pool, the pool and the replica's name, which its tasks on the agents go on carrying. All
 * null for a VM submitted on its own. {@code standby}: a replica its pool keeps suspended until it
 * is claimed. {@code setVersion}: the version of its set's template it was made of.
 */
@Embeddable
public record VmSetMembership(
    @MappedProperty("vm_set") @Nullable String vmSet,
    @MappedProperty("set_ordinal") @Nullable Integer setOrdinal,
    @MappedProperty("task_name") @Nullable String taskName,
    @MappedProperty("claimed_from") @Nullable String claimedFrom,
    @MappedProperty("standby") boolean standby,
    @MappedProperty("set_version") @Nullable Integer setVersion) {

  public static final VmSetMembership NONE =
      new VmSetMembership(null, null, null, null, false, null);

  /** Replica {@code setOrdinal} of {@code vmSet}, made of its template's {@code setVersion}. */
  public VmSetMembership(String vmSet, Integer setOrdinal, int setVersion) {
    this(vmSet, setOrdinal, null, null, false, setVersion);
  }
}
