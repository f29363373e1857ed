package dev.rota.api.vms;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.agentapi.GuestSpec;
import dev.rota.model.VmStatus;
import dev.rota.store.VmRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A VM as the API shows it, and the set it is a replica of (null for a VM submitted on its own).
 */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VmView(
    String name,
    String runtime,
    @Nullable String image,
    List<String> command,
    Map<String, String> env,
    Map<String, Long> resources,
    Map<String, String> labels,
    String restartPolicy,
    @Nullable Integer maxRestarts,
    @Nullable Integer restartWindowSeconds,
    @Nullable Integer ttlSecondsAfterFinished,
    @Nullable GuestSpec guest,
    @Nullable dev.rota.agentapi.Disconnect disconnect,
    String status,
    @Nullable String statusMessage,
    @Nullable String worker,
    int restartCount,
    @Nullable Integer exitCode,
    Instant createdAt,
    @Nullable Instant scheduledAt,
    @Nullable Instant startedAt,
    @Nullable Instant finishedAt,
    @Nullable String set,
    @Nullable String movingFrom) {

  public static VmView of(VmRow row) {
    return new VmView(
        row.name(),
        row.runtime(),
        row.image(),
        row.command(),
        row.env(),
        row.resources(),
        row.labels(),
        row.restartPolicy(),
        row.maxRestarts(),
        row.restartWindowSeconds(),
        row.ttlSecondsAfterFinished(),
        row.guest(),
        row.disconnect(),
        row.status(),
        message(row),
        row.worker(),
        row.restartCount(),
        row.exitCode(),
        row.createdAt(),
        row.scheduledAt(),
        row.startedAt(),
        row.finishedAt(),
        row.vmSet(),
        row.movingFrom() != null ? row.movingFrom() : row.oldCopyOn());
  }

  /**
   * A pending VM says why it waits, as the scheduler last explained it; any other, what its
   * workflow said, and while a move's old copy is being stopped, that too: the move is not over
   * until it is gone.
   */
  private static String message(VmRow row) {
    boolean pending = VmStatus.PENDING.wireName().equals(row.status());
    String said =
        pending && row.pendingReason() != null ? row.pendingReason() : row.statusMessage();
    return row.oldCopyOn() == null || pending
        ? said
        : (said == null ? "" : said + "; ")
            + "moving: its old copy on worker "
            + row.oldCopyOn()
            + " is being stopped";
  }
}
