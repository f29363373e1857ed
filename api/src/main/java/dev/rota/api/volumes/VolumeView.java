package dev.rota.api.volumes;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.store.VolumeRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * A data volume as the API shows it.
 *
 * @param worker the worker that holds it (its VM's, while a VM mounts it); null until a VM that
 *     mounts it is placed
 * @param vm the VM that mounts it; null for none
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VolumeView(
    String name, int sizeGi, @Nullable String worker, @Nullable String vm, Instant createdAt) {
  public static VolumeView of(VolumeRow row) {
    return new VolumeView(row.name(), row.sizeGi(), row.worker(), row.vm(), row.createdAt());
  }
}
