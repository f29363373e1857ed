package dev.rota.api.vms;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * {@code POST /v1/vms/{name}/snapshot}: the OCI reference, with a tag, to push the VM's disk to as
 * an image; {@code memory} (false when absent) to push a suspended VM's saved memory with it.
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record SnapshotRequest(
    @NotNull
        @Size(max = 2048)
        @Pattern(
            regexp = "^oci://[^@\\s]+:[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$",
            message =
                "must be an image in an OCI registry with a tag to push to,"
                    + " oci://registry/repository:tag")
        String image,
    @io.micronaut.core.annotation.Nullable Boolean memory) {

  /** Whether the VM's saved memory goes with its disk. */
  public boolean withMemory() {
    return Boolean.TRUE.equals(memory);
  }
}
