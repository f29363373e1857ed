package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;

/** The set a VM is a replica of, and which one; both null for a VM of no set. Written once. */
@Embeddable
public record VmSetMembership(
    @MappedProperty("vm_set") @Nullable String vmSet,
    @MappedProperty("set_ordinal") @Nullable Integer setOrdinal) {

  public static final VmSetMembership NONE = new VmSetMembership(null, null);
}
