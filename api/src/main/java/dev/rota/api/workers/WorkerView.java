package dev.rota.api.workers;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import dev.rota.store.Allocation;
import dev.rota.store.WorkerRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A worker as the API shows it, with what its placed VMs hold, the images its agent holds (most
 * recently used first), its drain, if one was asked for and not ended by a resume, and the SHA-256
 * of its agent's HTTPS certificate pinned at registration (null for a plain-HTTP agent), and what
 * its agent said a person should know of it ({@code notices}: limits it cannot enforce, guests
 * emulated in software), and the build its agent said it is when it registered ({@code
 * agentVersion}: {@code 0.1.0+<commit>}, null for an agent that did not say). {@code disks} are the
 * VMs whose persistent disks it holds, by name: they run nowhere else; {@code volumes} the data
 * volumes it holds, by name.
 */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record WorkerView(
    String name,
    String endpoint,
    Map<String, Long> resources,
    Map<String, String> labels,
    List<String> runtimes,
    @Nullable String machineId,
    boolean schedulingPaused,
    String health,
    @Nullable String healthMessage,
    @Nullable Instant lastSeen,
    Instant createdAt,
    Map<String, Long> allocated,
    int vmCount,
    List<HeldImage> images,
    List<String> disks,
    List<String> volumes,
    @Nullable DrainView drain,
    @Nullable String certificateSha256,
    List<String> notices,
    @Nullable String agentVersion)
    implements Named {

  public static WorkerView of(
      WorkerRow row,
      Allocation allocation,
      Map<String, Instant> images,
      List<String> disks,
      List<String> volumes) {
    return new WorkerView(
        row.name(),
        row.endpoint(),
        row.resources(),
        row.labels(),
        row.runtimes(),
        row.machineId(),
        row.schedulingPaused(),
        row.health(),
        row.healthMessage(),
        row.lastSeen(),
        row.createdAt(),
        allocation.resources(),
        allocation.vmCount(),
        HeldImage.shown(images),
        disks,
        volumes,
        DrainView.of(row, allocation.vmCount()),
        row.certificateSha256(),
        row.notices() == null ? List.of() : row.notices(),
        row.agentVersion());
  }
}
