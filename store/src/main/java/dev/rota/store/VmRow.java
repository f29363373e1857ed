package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Relation;
import io.micronaut.data.annotation.Version;
import java.time.Instant;
import java.util.List;

/**
 * A submitted VM's row, its columns grouped by who writes them: the user's {@link #spec} (at
 * submission), the lifecycle's {@link #state} (the VM's workflow), the scheduler's {@link #notes}
 * for placing it, its {@link #membership} of a set (at submission), and its task's {@link
 * #readiness} (task reports). {@code seq} orders VMs by submission for "oldest first" and for list
 * cursors, and tells a VM from an earlier one of its name.
 */
@MappedEntity("vms")
public record VmRow(
    @Id String name,
    long seq,
    Instant createdAt,
    @Relation(Relation.Kind.EMBEDDED) VmTemplate spec,
    @Relation(Relation.Kind.EMBEDDED) VmState state,
    @Relation(Relation.Kind.EMBEDDED) @Nullable VmPlacementNotes notes,
    @Relation(Relation.Kind.EMBEDDED) @Nullable VmSetMembership membership,
    @Relation(Relation.Kind.EMBEDDED) @Nullable VmReadiness readiness,
    @Version long version) {

  /** A group whose columns are all null is read back as none; it is the empty group. */
  public VmRow {
    notes = notes == null ? VmPlacementNotes.NONE : notes;
    membership = membership == null ? VmSetMembership.NONE : membership;
    readiness = readiness == null ? VmReadiness.NONE : readiness;
  }

  /** A VM as submitted: pending, generation 0, no worker. */
  public static VmRow submitted(
      String name, long seq, VmTemplate spec, String message, Instant now) {
    return replica(name, seq, spec, VmSetMembership.NONE, message, now);
  }

  /** A VM as its submission (or its set) made it: pending, generation 0, no worker. */
  public static VmRow replica(
      String name,
      long seq,
      VmTemplate spec,
      VmSetMembership membership,
      String message,
      Instant now) {
    return new VmRow(
        name,
        seq,
        now,
        spec,
        VmState.pending(message),
        VmPlacementNotes.NONE,
        membership,
        VmReadiness.NONE,
        0);
  }

  /**
   * The name its tasks carry on the agents ({@code <taskName>.<generation>}): its own, but for a VM
   * claimed from a pool, whose tasks carry the replica's.
   */
  public String taskName() {
    return membership.taskName() != null ? membership.taskName() : name;
  }

  /**
   * The tasks it may have on workers, as its row tells them: what a workflow begun anew from the
   * row would remove ({@link dev.rota.core.lifecycle.HeldTasks}). While it moves, both copies.
   */
  public List<dev.rota.core.lifecycle.HeldTasks.Held> heldTasks() {
    dev.rota.core.model.VmStatus status = state.vmStatus();
    String from = status == dev.rota.core.model.VmStatus.RUNNING ? notes.movingFrom() : null;
    return dev.rota.core.lifecycle.HeldTasks.of(
        taskName(),
        state.restartCount(),
        status,
        state.worker(),
        from,
        from == null ? null : state.worker());
  }

  /**
   * The name of what it keeps on its worker (its persistent disk, its saved memory): of the name
   * its tasks carry, so that a VM claimed from a pool finds the disk its replica made.
   */
  public String diskId() {
    return dev.rota.agentapi.DiskSpec.idOf(taskName(), seq);
  }

  /** Whether it has a readiness check: without one it is ready once it runs. */
  public boolean checksReadiness() {
    return spec.checks() != null && spec.checks().readiness() != null;
  }

  /** Whether it runs but its readiness check has not passed yet for its current start. */
  public boolean awaitingReadiness() {
    return readiness.awaited(state.status(), state.restartCount(), checksReadiness());
  }

  /** What the scheduler reads of it. */
  public VmSchedulingRow scheduling() {
    return new VmSchedulingRow(
        name,
        seq,
        spec.runtime(),
        spec.image(),
        spec.resources(),
        spec.labels(),
        spec.restartPolicy(),
        state.status(),
        state.restartCount(),
        notes.avoidWorker(),
        notes.avoidUntil(),
        membership.vmSet(),
        notes.failedOn(),
        notes.movingFrom(),
        notes.oldCopyOn(),
        dev.rota.agentapi.Disconnect.keeps(spec.disconnect()),
        awaitingReadiness(),
        spec.persistentDisk(),
        notes.diskOn(),
        spec.liveMigration(),
        membership.taskName(),
        spec.priority(),
        notes.evicted(state.restartCount()),
        spec.constraints(),
        spec.tolerations(),
        spec.affinities(),
        spec.namespace(),
        spec.diskSizeGi());
  }

  public VmRow withSpec(VmTemplate newSpec) {
    if (newSpec == spec) {
      return this;
    }
    return new VmRow(name, seq, createdAt, newSpec, state, notes, membership, readiness, version);
  }

  public VmRow withSeq(long newSeq) {
    return new VmRow(name, newSeq, createdAt, spec, state, notes, membership, readiness, version);
  }
}
