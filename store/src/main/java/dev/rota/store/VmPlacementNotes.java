package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import java.time.Instant;

/**
 * What the scheduler's terms note on a VM's row for placing it: the worker to avoid and until when,
 * why it waits (and whether it fits no worker of the cluster), the worker it failed on, and while
 * it moves, where its old copy runs and the worker it moves from, and the worker that holds its
 * persistent disk (or its saved memory), and whether its memory is saved there, to resume from;
 * while the VM moves with its disk, the worker the disk is copied from; and the generation the term
 * evicted. The scheduler writes these, and the VM's workflow its saved memory.
 */
@Embeddable
public record VmPlacementNotes(
    @MappedProperty("avoid_worker") @Nullable String avoidWorker,
    @MappedProperty("avoid_until") @Nullable Instant avoidUntil,
    @MappedProperty("pending_reason") @Nullable String pendingReason,
    @MappedProperty("failed_on") @Nullable String failedOn,
    @MappedProperty("moving_from") @Nullable String movingFrom,
    @MappedProperty("old_copy_on") @Nullable String oldCopyOn,
    @MappedProperty("fits_nowhere") boolean fitsNowhere,
    @MappedProperty("disk_on") @Nullable String diskOn,
    @MappedProperty("memory_saved") boolean memorySaved,
    @MappedProperty("disk_from") @Nullable String diskFrom,
    @MappedProperty("evicted_generation") @Nullable Integer evictedGeneration) {

  public static final VmPlacementNotes NONE =
      new VmPlacementNotes(null, null, null, null, null, null, false, null, false, null, null);

  public VmPlacementNotes(
      String avoidWorker,
      Instant avoidUntil,
      String pendingReason,
      String failedOn,
      String movingFrom,
      String oldCopyOn,
      boolean fitsNowhere) {
    this(
        avoidWorker,
        avoidUntil,
        pendingReason,
        failedOn,
        movingFrom,
        oldCopyOn,
        fitsNowhere,
        null,
        false,
        null,
        null);
  }

  /**
   * Whether the term evicted the task of {@code generation} (a drain's deadline, a preemption) and
   * its workflow has not yet moved on from it.
   */
  public boolean evicted(int generation) {
    return evictedGeneration != null && evictedGeneration == generation;
  }
}
