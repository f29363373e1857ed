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

  /** Why {@code vm} fits no worker of {@code workers}; empty when some worker could take it. */
  public static Optional<String> why(PendingVm vm, List<Candidate> workers) {
    if (workers.isEmpty()) {
      return Optional.empty(); // a cluster starting: its workers have yet to register
    }
    List<Candidate> offering =
        workers.stream().filter(w -> w.runtimes().contains(vm.runtime())).toList();
    if (offering.isEmpty()) {
      return Optional.of(PREFIX + "none offers runtime " + vm.runtime());
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
          return Optional.of(PREFIX + "none has label " + label.getKey() + "=" + label.getValue());
        }
      }
      return Optional.of(PREFIX + "none has all of the labels " + Shortfall.pairs(vm.labels()));
    }
    List<Candidate> meeting =
        labelled.stream()
            .filter(
                w ->
                    dev.rota.core.model.LabelConstraint.unmet(vm.constraints(), w.labels())
                        .isEmpty())
            .toList();
    if (meeting.isEmpty()) {
      FeasibilityCheck.Tally tally = new FeasibilityCheck.Tally();
      labelled.forEach(
          w -> {
            tally.reached();
            dev.rota.core.model.LabelConstraint.unmet(vm.constraints(), w.labels())
                .forEach(c -> tally.count(c.toString()));
          });
      return Optional.of(PREFIX + "none meets " + MeetsConstraints.unmet(vm, tally));
    }
    List<Candidate> tolerated =
        meeting.stream()
            .filter(
                w ->
                    dev.rota.agentapi.Toleration.untolerated(
                            vm.tolerations(), w.labels(), dev.rota.agentapi.Taint.NO_SCHEDULE)
                        .isEmpty())
            .toList();
    if (tolerated.isEmpty()) {
      FeasibilityCheck.Tally tally = new FeasibilityCheck.Tally();
      meeting.forEach(
          w -> {
            tally.reached();
            new ToleratesTaints().admits(w, vm, tally);
          });
      return Optional.of(
          PREFIX
              + "every one that could take it has a taint it does not tolerate: "
              + ToleratesTaints.worst(tally));
    }
    boolean someFit =
        tolerated.stream()
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
                tolerated.stream()
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
