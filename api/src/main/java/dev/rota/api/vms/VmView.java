package dev.rota.api.vms;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.rota.api.Named;
import dev.rota.core.model.VmStatus;
import dev.rota.store.VmRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;

/**
 * A VM as the API shows it: its spec as submitted (its fields at the top level, beside the
 * lifecycle's), and the set it is a replica of (null for a VM submitted on its own). {@code
 * restartAt} is when a VM that ended is restarted, while it waits to be (its back-off); {@code
 * unplaceable}, that a pending VM fits no worker of the cluster as it stands (its message says
 * why), so that it waits until the cluster changes. {@code endpoints} are where a running VM's
 * named ports are reached on its worker. {@code leaseExpiresAt} is when the lease of a VM with a
 * {@code maxRunDuration} runs out, once it has begun (the VM ran) and until the VM is stopped.
 * {@code diskOn} is the worker that holds a {@code qemu} VM's persistent disk, once placed.
 */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VmView(
    String name,
    @JsonUnwrapped VmSpecView spec,
    String status,
    @Nullable String statusMessage,
    boolean ready,
    @Nullable Instant readySince,
    @Nullable String readinessMessage,
    boolean unplaceable,
    @Nullable String worker,
    int restartCount,
    @Nullable Integer exitCode,
    Instant createdAt,
    @Nullable Instant scheduledAt,
    @Nullable Instant startedAt,
    @Nullable Instant finishedAt,
    @Nullable Instant restartAt,
    @Nullable Instant leaseExpiresAt,
    @Nullable String set,
    @Nullable String movingFrom,
    @Nullable String diskOn,
    List<VmEndpoints.Endpoint> endpoints,
    @Nullable String workflowUrl)
    implements Named {

  /**
   * As shown without its endpoints or its workflow's link (a VM just submitted, or deleted, has
   * neither yet, or no more).
   */
  public static VmView of(VmRow row) {
    return of(row, List.of(), null);
  }

  /** As shown, with where its ports are reached and its workflow in the Temporal UI (or null). */
  public static VmView of(
      VmRow row, List<VmEndpoints.Endpoint> endpoints, @Nullable String workflowUrl) {
    Instant readySince = readySince(row);
    return new VmView(
        row.name(),
        VmSpecView.of(row.spec()),
        row.state().status(),
        message(row),
        readySince != null,
        readySince,
        readinessMessage(row),
        VmStatus.PENDING.wireName().equals(row.state().status()) && row.notes().fitsNowhere(),
        row.state().worker(),
        row.state().restartCount(),
        row.state().exitCode(),
        row.createdAt(),
        row.state().scheduledAt(),
        row.state().startedAt(),
        row.state().finishedAt(),
        row.state().restartAt(),
        row.state().endedForGood() ? null : row.state().leaseExpiresAt(),
        row.membership().vmSet(),
        row.notes().movingFrom() != null ? row.notes().movingFrom() : row.notes().oldCopyOn(),
        row.notes().diskOn(),
        endpoints,
        workflowUrl);
  }

  /**
   * Since when it has been ready: running, and its readiness check passes (without one, since it
   * started); null while it is not.
   */
  private static Instant readySince(VmRow row) {
    if (!VmStatus.RUNNING.wireName().equals(row.state().status())) {
      return null;
    }
    if (!row.checksReadiness()) {
      return row.state().startedAt() == null ? row.createdAt() : row.state().startedAt();
    }
    return row.readiness().passesFor(row.state().restartCount()) ? row.readiness().since() : null;
  }

  /** What its readiness check said when it last failed, while it runs and is not ready. */
  private static String readinessMessage(VmRow row) {
    return VmStatus.RUNNING.wireName().equals(row.state().status())
            && row.checksReadiness()
            && current(row)
            && row.readiness().since() == null
        ? row.readiness().message()
        : null;
  }

  /** Whether what its agent last said of its readiness is of its current task. */
  private static boolean current(VmRow row) {
    return row.readiness().generation() != null
        && row.readiness().generation() == row.state().restartCount();
  }

  /**
   * A pending VM says why it waits, as the scheduler last explained it; any other, what its
   * workflow said, and while a move's old copy is being stopped, that too: the move is not over
   * until it is gone.
   */
  private static String message(VmRow row) {
    boolean pending = VmStatus.PENDING.wireName().equals(row.state().status());
    String said =
        pending && row.notes().pendingReason() != null
            ? row.notes().pendingReason()
            : row.state().statusMessage();
    return row.notes().oldCopyOn() == null || pending
        ? said
        : (said == null ? "" : said + "; ")
            + "moving: its old copy on worker "
            + row.notes().oldCopyOn()
            + " is being stopped";
  }
}
