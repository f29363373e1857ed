package dev.rota.api.vms;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * A {@code qemu} VM's root disk, an overlay of its image: whether it outlives the VM's tasks
 * ({@code persistent}, false unless given: kept on its worker, which the VM then stays on, until
 * the VM is deleted) and the size its guest sees ({@code sizeGi}; the image's unless given, never
 * smaller).
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record DiskRequest(
    @Nullable Boolean persistent, @Nullable @Min(1) @Max(DiskRequest.MAX_GI) Integer sizeGi) {
  /** 64 TiB: the largest disk the API takes. */
  public static final int MAX_GI = 65_536;

  boolean isPersistent() {
    return persistent != null && persistent;
  }
}
