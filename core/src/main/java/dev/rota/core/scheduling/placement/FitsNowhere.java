package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether a VM could not be placed even on an empty cluster of the workers there are, ready or not:
 * no worker offers its runtime, none of those carries its labels or meets its constraints, each of
 * those has a {@code NoSchedule} taint it does not tolerate, or none of the rest is big enough for
 * what it asks. Such a VM waits until the cluster changes (a worker joins or is relabelled), and
 * whoever waits for it to run is told at once rather than when their patience ends (as {@code nomad
 * job run} ends on a placement failure).
 */
public final class FitsNowhere {
  /** What every such reason begins with. */
  public static final String PREFIX = "fits no worker of the cluster: ";

  private FitsNowhere() {}

  /**
   * What is decided for every VM of a kind, whatever it asks for: why none of the workers could
   * ever take it, or the workers that could, room aside ({@link #bySize} then judges each size).
   */
  public record Judged(Optional<String> why, List<Candidate> couldTake) {}

  /** {@link Judged} for VMs like {@code vm}: worked out once per kind. */
  public static Judged ofKind(PendingVm vm, List<Candidate> workers) {
    if (workers.isEmpty()) {
      // A cluster starting: its workers have yet to register.
      return new Judged(Optional.empty(), List.of());
    }
    List<Candidate> offering =
        workers.stream().filter(w -> w.runtimes().contains(vm.runtime())).toList();
    if (offering.isEmpty()) {
      return none(PREFIX + "none offers runtime " + vm.runtime());
    }
    List<Candidate> labelled =
        offering.stream()
            .filter(
                w ->
                    vm.labels().entrySet().stream()
                        .allMatch(l -> l.getValue().equals(w.labels().get(l.getKey()))))
            .toList();
    if (labelled.isEmpty()) {
      for (Map.Entry<String, String> label : new TreeMap<>(vm.labels()).entrySet()) {
        if (offering.stream()
            .noneMatch(w -> label.getValue().equals(w.labels().get(label.getKey())))) {
          return none(PREFIX + "none has label " + label.getKey() + "=" + label.getValue());
        }
      }
      return none(PREFIX + "none has all of the labels " + Shortfall.pairs(vm.labels()));
    }
    List<java.util.function.Predicate<Map<String, String>>> rules =
        vm.constraints().stream().map(dev.rota.core.model.LabelConstraint::compiled).toList();
    List<Candidate> meeting =
        labelled.stream().filter(w -> rules.stream().allMatch(r -> r.test(w.labels()))).toList();
    if (meeting.isEmpty()) {
      FeasibilityCheck.Tally tally = new FeasibilityCheck.Tally();
      labelled.forEach(
          w -> {
            tally.reached();
            dev.rota.core.model.LabelConstraint.unmet(vm.constraints(), w.labels())
                .forEach(c -> tally.count(c.toString()));
          });
      return none(PREFIX + "none meets " + MeetsConstraints.unmet(vm, tally));
    }
    List<Candidate> tolerated =
        meeting.stream()
            .filter(
                w ->
                    dev.rota.agentapi.Toleration.untolerated(
                            vm.tolerations(), w.taints(), dev.rota.agentapi.Taint.NO_SCHEDULE)
                        .isEmpty())
            .toList();
    if (tolerated.isEmpty()) {
      FeasibilityCheck.Tally tally = new FeasibilityCheck.Tally();
      meeting.forEach(
          w -> {
            tally.reached();
            new ToleratesTaints().admits(w, vm, tally);
          });
      return none(
          PREFIX
              + "every one that could take it has a taint it does not tolerate: "
              + ToleratesTaints.worst(tally));
    }
    return new Judged(Optional.empty(), tolerated);
  }

  private static Judged none(String why) {
    return new Judged(Optional.of(why), List.of());
  }

  /**
   * Why {@code vm} is too big for every one of {@code couldTake} ({@link Judged#couldTake}); empty
   * when one is big enough, or there are none yet.
   */
  public static Optional<String> bySize(PendingVm vm, List<Candidate> couldTake) {
    if (couldTake.isEmpty()) {
      return Optional.empty();
    }
    boolean someFit =
        couldTake.stream()
            .anyMatch(
                w ->
                    vm.request().entrySet().stream()
                        .allMatch(r -> r.getValue() <= w.capacity().getOrDefault(r.getKey(), 0L)));
    if (someFit) {
      return Optional.empty();
    }
    Optional<String> shortOf =
        Shortfall.of(
            vm.request(),
            resource ->
                couldTake.stream()
                    .mapToLong(w -> w.capacity().getOrDefault(resource, 0L))
                    .max()
                    .orElse(0),
            "the largest worker that could take it has",
            " in all");
    if (shortOf.isPresent()) {
      return Optional.of(PREFIX + shortOf.get());
    }
    return Optional.of(
        PREFIX
            + "needs "
            + Shortfall.pairs(vm.request())
            + " together; no worker has all of it in all");
  }
}
