package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A data volume.
 *
 * @param seq its number, new for each volume made under the name: its id on a worker is {@code
 *     <name>-v<seq>}
 * @param worker the worker that holds it, read as where it is now ({@link
 *     VolumeRepository#findHeld}): its VM's disk's worker while a VM mounts it; null while no
 *     worker has made it yet
 * @param vm the VM that mounts it; null for none
 */
@MappedEntity("volumes")
public record VolumeRow(
    @Id String name,
    long seq,
    int sizeGi,
    @Nullable String worker,
    @Nullable String vm,
    Instant createdAt) {
  /** Its id on its worker. */
  public String volumeId() {
    return dev.rota.agentapi.VolumeSpec.idOf(name, seq);
  }
}
