package dev.rota.core.scheduling.placement;

import dev.rota.agentapi.Taint;
import dev.rota.agentapi.Toleration;
import dev.rota.core.model.LabelConstraint;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The workers each kind of VM may go to as far as the feasibility checks ({@link
 * PlacementStack#CHECKS}) go, decided once per kind in a term and shared by placement, preemption
 * and rebalancing, with what each check saw (to say why a VM waits). VMs are of one kind when they
 * ask for the same runtime, labels and constraints, tolerate the same taints and have the same
 * affinities; a term's VMs fall into few kinds, its workers are many.
 */
public final class WorkerClasses {
  private final List<Candidate> workers;
  private final Map<Key, WorkerClass> classes = new HashMap<>();

  /** Over {@code workers}, in any order: each class lists its members by name. */
  public WorkerClasses(List<Candidate> workers) {
    this.workers = workers.stream().sorted(Comparator.comparing(Candidate::name)).toList();
  }

  /** Every worker, by name. */
  public List<Candidate> workers() {
    return workers;
  }

  /** The workers the checks admit for VMs like {@code vm}. */
  public WorkerClass of(PendingVm vm) {
    return classes.computeIfAbsent(Key.of(vm), k -> admitted(vm));
  }

  private WorkerClass admitted(PendingVm vm) {
    List<FeasibilityCheck.Prepared> checks = new ArrayList<>(PlacementStack.CHECKS.size());
    List<FeasibilityCheck.Tally> tallies = new ArrayList<>(PlacementStack.CHECKS.size());
    for (FeasibilityCheck check : PlacementStack.CHECKS) {
      checks.add(check.prepare(vm));
      tallies.add(new FeasibilityCheck.Tally());
    }
    List<Candidate> members = new ArrayList<>();
    Set<String> reluctant = new HashSet<>();
    Map<String, Double> affinity = new HashMap<>();
    java.util.function.ToDoubleFunction<Map<String, String>> scorer =
        dev.rota.core.model.Affinity.scorer(vm.affinities());
    for (Candidate w : workers) {
      if (admits(checks, tallies, w)) {
        members.add(w);
        if (!vm.affinities().isEmpty()) {
          affinity.put(w.name(), scorer.applyAsDouble(w.labels()));
        }
        if (!Toleration.untolerated(vm.tolerations(), w.taints(), Taint.PREFER_NO_SCHEDULE)
            .isEmpty()) {
          reluctant.add(w.name());
        }
      }
    }
    return new WorkerClass(members, reluctant, affinity, tallies);
  }

  /** Whether every check admits {@code w}; each notes what it saw. */
  private static boolean admits(
      List<FeasibilityCheck.Prepared> checks, List<FeasibilityCheck.Tally> tallies, Candidate w) {
    for (int i = 0; i < checks.size(); i++) {
      FeasibilityCheck.Tally tally = tallies.get(i);
      tally.reached();
      if (!checks.get(i).admits(w, tally)) {
        return false;
      }
      tally.admitted();
    }
    return true;
  }

  /** VMs alike in the workers the feasibility checks admit. */
  public record Key(
      String runtime,
      Map<String, String> labels,
      List<LabelConstraint> constraints,
      List<Toleration> tolerations,
      List<dev.rota.core.model.Affinity> affinities) {
    public static Key of(PendingVm vm) {
      return new Key(
          vm.runtime(), vm.labels(), vm.constraints(), vm.tolerations(), vm.affinities());
    }

    /** The same without affinities: VMs alike in where they may go, whatever they prefer. */
    public Key feasibility() {
      return affinities.isEmpty()
          ? this
          : new Key(runtime, labels, constraints, tolerations, List.of());
    }
  }

  /** The workers of one kind of VM. */
  public static final class WorkerClass {
    private final List<Candidate> members;
    private final Set<String> names = new HashSet<>();
    private final Set<String> reluctant;
    private final Map<String, Double> affinity;
    private final List<FeasibilityCheck.Tally> tallies;

    WorkerClass(
        List<Candidate> members,
        Set<String> reluctant,
        Map<String, Double> affinity,
        List<FeasibilityCheck.Tally> tallies) {
      this.members = List.copyOf(members);
      this.reluctant = reluctant;
      this.affinity = affinity;
      this.tallies = List.copyOf(tallies);
      members.forEach(w -> names.add(w.name()));
    }

    /**
     * Whether the member named {@code worker} has a {@code PreferNoSchedule} taint these VMs do not
     * tolerate: it takes one only when no other member has room.
     */
    public boolean reluctant(String worker) {
      return reluctant.contains(worker);
    }

    /** The workers, by name. */
    public List<Candidate> members() {
      return members;
    }

    /** Whether the worker named {@code worker} is one. */
    public boolean admits(String worker) {
      return names.contains(worker);
    }

    /** Whether these VMs have affinities: then their workers are ranked by them too. */
    public boolean hasAffinities() {
      return !affinity.isEmpty();
    }

    /**
     * How much these VMs want the member named {@code worker} by their affinities, from -1 to 1 (0
     * for VMs without any).
     */
    public double affinity(String worker) {
      return affinity.getOrDefault(worker, 0.0);
    }

    /** What each check saw, in {@link PlacementStack#CHECKS}'s order. */
    public List<FeasibilityCheck.Tally> tallies() {
      return tallies;
    }
  }
}
