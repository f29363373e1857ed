package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.List;

/**
 * What decides where a VM may go and where it goes, in order: the feasibility checks that depend
 * only on the worker and the kind of VM, then what is decided per VM (the worker it avoids, where
 * its set's replicas are: {@link SpreadsReplicas}), then room, then the profile's ranker ({@link
 * Ranker#of}). A VM that waits is told why by the first of them that refused every worker.
 */
public final class PlacementStack {
  private PlacementStack() {}

  /**
   * The checks that hold of a worker whatever its state: what it offers and what it carries, which
   * also decide whether a VM could go to any worker of the cluster ({@link FitsNowhere}). Adding a
   * check is one class and one line here.
   */
  public static final List<FeasibilityCheck> STANDING =
      List.of(new OffersRuntime(), new HasLabels(), new MeetsConstraints(), new ToleratesTaints());

  /** Every check, in order: a worker takes placements only while ready, then the standing ones. */
  public static final List<FeasibilityCheck> CHECKS =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of(new ReadyAndUnpaused()), STANDING.stream())
          .toList();

  public static final AvoidsWorker AVOIDS = new AvoidsWorker();

  public static final KeepsItsDisk DISK = new KeepsItsDisk();

  public static final FitsResources RESOURCES = new FitsResources();

  /**
   * Whether every check admits {@code worker} for VMs like {@code vm}, when why not does not
   * matter.
   */
  public static boolean feasible(Candidate worker, PendingVm vm) {
    for (FeasibilityCheck check : CHECKS) {
      if (!check.admits(worker, vm, new FeasibilityCheck.Tally())) {
        return false;
      }
    }
    return true;
  }
}
