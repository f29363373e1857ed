package dev.rota.api.namespaces;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;

/**
 * {@code PUT /v1/namespaces/{name}}: what the namespace is for and its quota; a limit left out (or
 * the whole quota) is none.
 */
@Serdeable
public record NamespaceRequest(
    @Nullable @Size(max = 1024) String description, @Nullable @Valid QuotaRequest quota) {

  /**
   * How much the namespace's VMs may hold between them, each counted from its submission to its
   * deletion: {@code cpu} cores, {@code memory} (MiB, or {@code "16Gi"}), {@code vms}, {@code disk}
   * GiB of root disks (a {@code qemu} VM of a namespace with a disk quota gives its disk's size).
   */
  @Serdeable
  public record QuotaRequest(
      @Nullable @Min(0) Long cpu,
      @Nullable Object memory,
      @Nullable @Min(0) Long vms,
      @Nullable @Min(0) Long disk) {}
}
