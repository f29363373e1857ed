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
    List<LabelConstraint> constraints) {
  public PendingVm {
    constraints = constraints == null ? List.of() : constraints;
  }

  public PendingVm(
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
      int priority) {
    this(
        name, seq, runtime, request, labels, avoid, set, spread, failedOn, image, diskOn, priority,
        List.of());
  }

  public PendingVm(
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
      String diskOn) {
    this(
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
        Priority.DEFAULT);
  }

  public PendingVm(
      String name,
      long seq,
      String runtime,
      Map<String, Long> request,
      Map<String, String> labels,
      String avoid,
      String set,
      Spread spread,
      String failedOn,
      String image) {
    this(name, seq, runtime, request, labels, avoid, set, spread, failedOn, image, null);
  }

  public PendingVm(
      String name,
      long seq,
      String runtime,
      Map<String, Long> request,
      Map<String, String> labels,
      String avoid,
      String set,
      Spread spread,
      String failedOn) {
    this(name, seq, runtime, request, labels, avoid, set, spread, failedOn, null);
  }

  public PendingVm(
      String name,
      long seq,
      String runtime,
      Map<String, Long> request,
      Map<String, String> labels,
      String avoid) {
    this(name, seq, runtime, request, labels, avoid, null, Spread.NONE, null, null);
  }

  public PendingVm(
      String name,
      long seq,
      String runtime,
      Map<String, Long> request,
      Map<String, String> labels) {
    this(name, seq, runtime, request, labels, null);
  }

  /** The order of the pending queue: the highest priority first, then the oldest. */
  public static final java.util.Comparator<PendingVm> QUEUE_ORDER =
      java.util.Comparator.comparingInt(PendingVm::priority)
          .reversed()
          .thenComparingLong(PendingVm::seq)
          .thenComparing(PendingVm::name);

  /** The same VM avoiding {@code worker} instead. */
  public PendingVm avoiding(String worker) {
    return new PendingVm(
        name, seq, runtime, request, labels, worker, set, spread, failedOn, image, diskOn,
        priority);
  }

  /** The same VM free to go to any worker: what it keeps on its worker goes with it. */
  public PendingVm takingItsDisk() {
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
        null,
        priority,
        constraints);
  }

  /** The same VM at {@code newPriority}. */
  public PendingVm withPriority(int newPriority) {
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
        newPriority);
  }

  /** The same VM with {@code newConstraints} on its worker's labels. */
  public PendingVm withConstraints(List<LabelConstraint> newConstraints) {
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
        newConstraints);
  }

  /** Whether where its set's other replicas are decides where it may go. */
  public boolean spreads() {
    return set != null && !(spread instanceof Spread.None);
  }
}
