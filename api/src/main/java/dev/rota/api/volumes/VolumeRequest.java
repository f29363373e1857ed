package dev.rota.api.volumes;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * {@code POST /v1/volumes}: a blank data volume of {@code sizeGi} GiB, made on {@code worker}, or,
 * without one, on the worker of the first VM that mounts it.
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record VolumeRequest(
    @NotNull @Pattern(regexp = VolumeRequest.NAME, message = VolumeRequest.NAME_MESSAGE)
        String name,
    @NotNull @Min(1) @Max(dev.rota.api.vms.DiskRequest.MAX_GI) Integer sizeGi,
    @Nullable
        @Pattern(
            regexp = dev.rota.api.Names.DNS_LABEL,
            message = dev.rota.api.Names.DNS_LABEL_MESSAGE)
        String worker) {
  /** A DNS label of at most 20 characters: the guest sees it as its disk's serial. */
  public static final String NAME = "^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?$";

  public static final String NAME_MESSAGE =
      "must be a lowercase DNS label of at most 20 characters (the guest sees it as its disk's"
          + " serial)";
}
