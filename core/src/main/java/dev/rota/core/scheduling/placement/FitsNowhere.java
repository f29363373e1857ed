package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
    List<Candidate> could = workers;
    for (FeasibilityCheck check : PlacementStack.STANDING) {
      FeasibilityCheck.Prepared prepared = check.prepare(vm);
      List<Candidate> passed = passing(prepared, could, FeasibilityCheck.Tally.uncounted());
      if (passed.isEmpty()) {
        // Only now is it worth counting why each worker was refused.
        FeasibilityCheck.Tally tally = new FeasibilityCheck.Tally();
        passing(prepared, could, tally);
        return none(PREFIX + check.whyNone(vm, tally, FeasibilityCheck.Workers.ANY));
      }
      could = passed;
    }
    return new Judged(Optional.empty(), could);
  }

  private static List<Candidate> passing(
      FeasibilityCheck.Prepared check, List<Candidate> workers, FeasibilityCheck.Tally tally) {
    List<Candidate> passed = new ArrayList<>(workers.size());
    for (Candidate w : workers) {
      tally.reached();
      if (check.admits(w, tally)) {
        tally.admitted();
        passed.add(w);
      }
    }
    return passed;
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
