package dev.rota.core.scheduling;

import dev.rota.core.model.LabelConstraint;
import dev.rota.core.model.Priority;
import dev.rota.core.model.Spread;
import java.util.List;
import java.util.Map;

/**
 * A VM waiting for a worker.
 *
 * @param seq its place in submission order: of VMs of one priority, older ones are placed first
 * @param avoid a worker not to place it on for now (its task could not be started there lately, or
 *     a task of an earlier VM of its name is still there), or null
 * @param set the VM set it is a replica of, or null
 * @param spread how its set spreads its replicas; {@link Spread#NONE} for a VM of no set
 * @param failedOn the worker its last task failed on: taken only when no other worker may take it,
 *     or null
 * @param image the image it runs, which a worker that holds it starts sooner; null for none
 * @param diskOn the worker that holds its persistent disk or saved memory: the one worker it goes
 *     to while that worker takes VMs, else any, the disk copied, if that worker lends it; null for
 *     any
 * @param priority how far ahead of other VMs it is placed ({@link Priority}): higher first, then
 *     older
 * @param constraints rules on its worker's labels beyond the labels it asks for; empty for none
 * @param tolerations the workers' taints it may go past ({@link dev.rota.agentapi.Toleration});
 *     empty for none
 * @param affinities the workers it prefers, or avoids, by their labels ({@link
 *     dev.rota.core.model.Affinity}); empty for none
 * @param namespace the namespace whose quota it counts against ({@link NamespaceBudgets})
 * @param diskSizeGi its root disk's size, as its namespace's quota counts it; null for its image's
 */
public record PendingVm(
    String name,
    long seq,
    String runtime,
    Map<String, Long> request,
    Map<String, String> labels,
    String avoid,
    String set,
    Spread spread,
    String failedOn,
    String image,
    String diskOn,
    int priority,
    List<LabelConstraint> constraints,
    java.util.List<dev.rota.agentapi.Toleration> tolerations,
    java.util.List<dev.rota.core.model.Affinity> affinities,
    String namespace,
    Integer diskSizeGi) {
  public PendingVm {
    namespace = namespace == null ? "default" : namespace;
    constraints = constraints == null ? List.of() : constraints;
    tolerations = tolerations == null ? java.util.List.of() : tolerations;
    affinities = affinities == null ? java.util.List.of() : affinities;
  }

  /**
   * A VM of {@code name} and submission {@code seq} asking for {@code request} on {@code runtime},
   * of no set and no labels, at priority {@link Priority#DEFAULT}.
   */
  public static Builder builder(String name, long seq, String runtime, Map<String, Long> request) {
    return new Builder(name, seq, runtime, request);
  }

  /** A {@link PendingVm} made field by field, each left out at its default. */
  public static final class Builder {
    private final String name;
    private final long seq;
    private final String runtime;
    private final Map<String, Long> request;
    private Map<String, String> labels = Map.of();
    private String avoid;
    private String set;
    private Spread spread = Spread.NONE;
    private String failedOn;
    private String image;
    private String diskOn;
    private int priority = Priority.DEFAULT;
    private List<LabelConstraint> constraints = List.of();
    private java.util.List<dev.rota.agentapi.Toleration> tolerations = java.util.List.of();
    private java.util.List<dev.rota.core.model.Affinity> affinities = java.util.List.of();
    private String namespace = "default";
    private Integer diskSizeGi;

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

    public Builder avoid(String avoid) {
      this.avoid = avoid;
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

    public Builder image(String image) {
      this.image = image;
      return this;
    }

    public Builder diskOn(String diskOn) {
      this.diskOn = diskOn;
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder constraints(List<LabelConstraint> constraints) {
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

    public PendingVm build() {
      return new PendingVm(
          name,
          seq,
          runtime,
          request,
          labels,
          avoid,
          set,
          spread,
          failedOn,
          image,
          diskOn,
          priority,
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

  /** A builder that starts from this VM. */
  public Builder toBuilder() {
    return builder(name, seq, runtime, request)
        .labels(labels)
        .avoid(avoid)
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
        .diskSizeGi(diskSizeGi);
  }

  /** What it holds against its namespace's quota once placed. */
  public dev.rota.core.model.NamespaceUsage usage() {
    return dev.rota.core.model.NamespaceUsage.of(request, diskSizeGi);
  }

  /** The order of the pending queue: the highest priority first, then the oldest. */
  public static final java.util.Comparator<PendingVm> QUEUE_ORDER =
      java.util.Comparator.comparingInt(PendingVm::priority)
          .reversed()
          .thenComparingLong(PendingVm::seq)
          .thenComparing(PendingVm::name);

  /** The same VM avoiding {@code worker} instead. */
  public PendingVm avoiding(String worker) {
    return toBuilder().avoid(worker).build();
  }

  /** The same VM free to go to any worker: what it keeps on its worker goes with it. */
  public PendingVm takingItsDisk() {
    return toBuilder().diskOn(null).build();
  }

  /** The same VM at {@code newPriority}. */
  public PendingVm withPriority(int newPriority) {
    return toBuilder().priority(newPriority).build();
  }

  /** The same VM with {@code newConstraints} on its worker's labels. */
  public PendingVm withConstraints(List<LabelConstraint> newConstraints) {
    return toBuilder().constraints(newConstraints).build();
  }

  /** Whether where its set's other replicas are decides where it may go. */
  public boolean spreads() {
    return set != null && !(spread instanceof Spread.None);
  }
}
