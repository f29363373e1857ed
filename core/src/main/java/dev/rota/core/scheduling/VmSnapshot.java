package dev.rota.core.scheduling;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.Spread;
import dev.rota.core.model.VmStatus;
import java.util.Map;

/**
 * A VM at the start of a term, as the store has it: its spec, and its status and generation as its
 * workflow decided them.
 *
 * @param seq its submission: orders VMs oldest first, and tells a VM from an earlier one of its
 *     name
 * @param avoidWorker a worker it is not to be placed on for now, or null
 * @param set the VM set it is a replica of, or null
 * @param spread how that set spreads its replicas, as the set asks now
 * @param failedOn the worker its last task failed on, which its restart prefers to avoid, or null
 * @param movingFrom the worker its previous task runs on while the task of {@code restartCount}, a
 *     move's new copy, has not yet started; null when it is not moving
 * @param image the image it runs, or null
 * @param restartPolicy when its workflow starts it again: a VM with a policy is moved off a
 *     draining worker, one without waits there for the drain's deadline
 * @param oldCopyOn the worker a finished move's old copy is being stopped on, once the new copy
 *     runs; null when none is
 * @param keepsThroughDisconnect whether it stays on its worker while that worker is offline (its
 *     {@code disconnect.replace} is false) rather than being placed elsewhere
 * @param awaitingReadiness whether it runs but its readiness check has not passed yet: not yet
 *     available to its set
 * @param persistentDisk whether its root disk outlives its tasks: then it stays on the worker that
 *     holds it, is neither moved nor rebalanced, and waits for a drain's deadline
 * @param diskOn the worker that holds its persistent disk, once placed; null for none
 * @param liveMigration whether it moves while it runs (a {@code qemu} VM with a persistent disk and
 *     {@code migration: live}): a drain moves it with its memory and disk instead of keeping it
 *     until the deadline, and a failed move leaves it running where it was
 * @param taskName the name its tasks carry on the agents: its own, or for a VM claimed from a pool
 *     the replica's (null is taken for its own)
 * @param priority how far ahead of other VMs it is placed, and which it may evict ({@link
 *     dev.rota.core.model.Priority})
 * @param evicted whether the term evicted its current task (a drain's deadline, a preemption) and
 *     its workflow has not yet moved on from it: what it holds is on its way out
 * @param constraints rules on its worker's labels beyond the labels it asks for; empty for none
 * @param tolerations the workers' taints it may go past ({@link dev.rota.agentapi.Toleration});
 *     empty for none
 * @param affinities the workers it prefers, or avoids, by their labels ({@link
 *     dev.rota.core.model.Affinity}); empty for none
 * @param namespace the namespace whose quota it counts against
 * @param diskSizeGi its root disk's size, as its namespace's quota counts it; null for its image's
 */
public record VmSnapshot(
    String name,
    long seq,
    String runtime,
    Map<String, Long> request,
    Map<String, String> labels,
    VmStatus status,
    int restartCount,
    String avoidWorker,
    String set,
    Spread spread,
    String failedOn,
    String movingFrom,
    String image,
    RestartPolicy restartPolicy,
    String oldCopyOn,
    boolean keepsThroughDisconnect,
    boolean awaitingReadiness,
    boolean persistentDisk,
    String diskOn,
    boolean liveMigration,
    String taskName,
    int priority,
    boolean evicted,
    java.util.List<dev.rota.core.model.LabelConstraint> constraints,
    java.util.List<dev.rota.agentapi.Toleration> tolerations,
    java.util.List<dev.rota.core.model.Affinity> affinities,
    String namespace,
    Integer diskSizeGi) {
  public VmSnapshot {
    namespace = namespace == null ? "default" : namespace;
    taskName = taskName == null ? name : taskName;
    constraints = constraints == null ? java.util.List.of() : constraints;
    tolerations = tolerations == null ? java.util.List.of() : tolerations;
    affinities = affinities == null ? java.util.List.of() : affinities;
  }

  /**
   * A VM of {@code name} and submission {@code seq} asking for {@code request} on {@code runtime}:
   * pending at generation 0, with no labels, set, image or constraints, priority {@link
   * dev.rota.core.model.Priority#DEFAULT}, and no restart policy until told otherwise.
   */
  public static Builder builder(String name, long seq, String runtime, Map<String, Long> request) {
    return new Builder(name, seq, runtime, request);
  }

  /** A builder that starts from this VM. */
  public Builder toBuilder() {
    return builder(name, seq, runtime, request)
        .labels(labels)
        .status(status)
        .restartCount(restartCount)
        .avoidWorker(avoidWorker)
        .set(set)
        .spread(spread)
        .failedOn(failedOn)
        .movingFrom(movingFrom)
        .image(image)
        .restartPolicy(restartPolicy)
        .oldCopyOn(oldCopyOn)
        .keepsThroughDisconnect(keepsThroughDisconnect)
        .awaitingReadiness(awaitingReadiness)
        .persistentDisk(persistentDisk)
        .diskOn(diskOn)
        .liveMigration(liveMigration)
        .taskName(taskName)
        .priority(priority)
        .evicted(evicted)
        .constraints(constraints)
        .tolerations(tolerations)
        .affinities(affinities)
        .namespace(namespace)
        .diskSizeGi(diskSizeGi);
  }

  /** A {@link VmSnapshot} made field by field, each left out at its default. */
  public static final class Builder {
    private String namespace = "default";
    private Integer diskSizeGi;
    private final String name;
    private final long seq;
    private final String runtime;
    private final Map<String, Long> request;
    private Map<String, String> labels = Map.of();
    private VmStatus status = VmStatus.PENDING;
    private int restartCount;
    private String avoidWorker;
    private String set;
    private Spread spread = Spread.NONE;
    private String failedOn;
    private String movingFrom;
    private String image;
    private RestartPolicy restartPolicy = RestartPolicy.NEVER;
    private String oldCopyOn;
    private boolean keepsThroughDisconnect;
    private boolean awaitingReadiness;
    private boolean persistentDisk;
    private String diskOn;
    private boolean liveMigration;
    private String taskName;
    private int priority = dev.rota.core.model.Priority.DEFAULT;
    private boolean evicted;
    private java.util.List<dev.rota.core.model.LabelConstraint> constraints = java.util.List.of();
    private java.util.List<dev.rota.agentapi.Toleration> tolerations = java.util.List.of();
    private java.util.List<dev.rota.core.model.Affinity> affinities = java.util.List.of();

    private Builder(String name, long seq, String runtime, Map<String, Long> request) {
      this.name = name;
      this.seq = seq;
      this.runtime = runtime;
      this.request = request;
    }

    public Builder labels(Map<String, String> labels) {
      this.labels = labels;
      return this;
    }

    public Builder status(VmStatus status) {
      this.status = status;
      return this;
    }

    public Builder restartCount(int restartCount) {
      this.restartCount = restartCount;
      return this;
    }

    public Builder avoidWorker(String avoidWorker) {
      this.avoidWorker = avoidWorker;
      return this;
    }

    public Builder set(String set) {
      this.set = set;
      return this;
    }

    public Builder spread(Spread spread) {
      this.spread = spread;
      return this;
    }

    public Builder failedOn(String failedOn) {
      this.failedOn = failedOn;
      return this;
    }

    public Builder movingFrom(String movingFrom) {
      this.movingFrom = movingFrom;
      return this;
    }

    public Builder image(String image) {
      this.image = image;
      return this;
    }

    public Builder restartPolicy(RestartPolicy restartPolicy) {
      this.restartPolicy = restartPolicy;
      return this;
    }

    public Builder oldCopyOn(String oldCopyOn) {
      this.oldCopyOn = oldCopyOn;
      return this;
    }

    public Builder keepsThroughDisconnect(boolean keepsThroughDisconnect) {
      this.keepsThroughDisconnect = keepsThroughDisconnect;
      return this;
    }

    public Builder awaitingReadiness(boolean awaitingReadiness) {
      this.awaitingReadiness = awaitingReadiness;
      return this;
    }

    public Builder persistentDisk(boolean persistentDisk) {
      this.persistentDisk = persistentDisk;
      return this;
    }

    public Builder diskOn(String diskOn) {
      this.diskOn = diskOn;
      return this;
    }

    public Builder liveMigration(boolean liveMigration) {
      this.liveMigration = liveMigration;
      return this;
    }

    public Builder taskName(String taskName) {
      this.taskName = taskName;
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder evicted(boolean evicted) {
      this.evicted = evicted;
      return this;
    }

    public Builder constraints(java.util.List<dev.rota.core.model.LabelConstraint> constraints) {
      this.constraints = constraints;
      return this;
    }

    public Builder tolerations(java.util.List<dev.rota.agentapi.Toleration> tolerations) {
      this.tolerations = tolerations;
      return this;
    }

    public Builder affinities(java.util.List<dev.rota.core.model.Affinity> affinities) {
      this.affinities = affinities;
      return this;
    }

    public VmSnapshot build() {
      return new VmSnapshot(
          name,
          seq,
          runtime,
          request,
          labels,
          status,
          restartCount,
          avoidWorker,
          set,
          spread,
          failedOn,
          movingFrom,
          image,
          restartPolicy,
          oldCopyOn,
          keepsThroughDisconnect,
          awaitingReadiness,
          persistentDisk,
          diskOn,
          liveMigration,
          taskName,
          priority,
          evicted,
          constraints,
          tolerations,
          affinities,
          namespace,
          diskSizeGi);
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder diskSizeGi(Integer diskSizeGi) {
      this.diskSizeGi = diskSizeGi;
      return this;
    }
  }

  /** The id its task of generation {@code generation} has (or will have) on its agent. */
  public String taskIdAt(int generation) {
    return dev.rota.agentapi.TaskId.of(taskName, generation).toString();
  }

  /** Running and ready, or running without a readiness check: what its set counts as available. */
  public boolean available() {
    return status == VmStatus.RUNNING && !awaitingReadiness;
  }

  /**
   * Whether its workflow wants a task of generation {@code restartCount} to run: it has not decided
   * that the task ended or is to stop. Placed or not is the tasks' to say, not the status's.
   */
  public boolean wantsTask() {
    // One being suspended keeps its task until its memory is saved: removing it would lose that.
    return status == VmStatus.PENDING
        || status == VmStatus.SCHEDULED
        || status == VmStatus.RUNNING
        || status == VmStatus.SUSPENDING
        || status == VmStatus.PAUSED;
  }

  /**
   * Whether its workflow starts it again after its task ends some way: then it is moved rather than
   * stopped.
   */
  public boolean restarts() {
    return restartPolicy != RestartPolicy.NEVER;
  }

  /**
   * Whether it may be taken off its worker and started again elsewhere without loss: its workflow
   * starts it again, and it keeps nothing on the worker (no persistent disk). A drain moves such a
   * VM; a preemption may evict it.
   */
  public boolean replaceable() {
    return restarts() && !persistentDisk();
  }

  /** As placement sees it while it waits for a worker. */
  public PendingVm asPending() {
    return PendingVm.builder(name, seq, runtime, request)
        .labels(labels)
        .avoid(avoidWorker)
        .set(set)
        .spread(spread)
        .failedOn(failedOn)
        .image(image)
        .diskOn(diskOn)
        .priority(priority)
        .constraints(constraints)
        .tolerations(tolerations)
        .affinities(affinities)
        .namespace(namespace)
        .diskSizeGi(diskSizeGi)
        .build();
  }

  /** What it holds against its namespace's quota while it holds a worker. */
  public dev.rota.core.model.NamespaceUsage usage() {
    return dev.rota.core.model.NamespaceUsage.of(request, diskSizeGi);
  }

  /** Whether a move's new copy is on its way while the previous task still runs. */
  public boolean moving() {
    return movingFrom != null && wantsTask();
  }

  /** Whether a move is under way: its new copy not yet running, or its old copy not yet gone. */
  public boolean moveUnderWay() {
    return moving() || oldCopyOn != null;
  }
}
