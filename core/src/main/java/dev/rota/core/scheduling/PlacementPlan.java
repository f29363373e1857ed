package dev.rota.core.scheduling;

import java.util.List;

/** What one term's placement decided: VMs placed on workers, and why each other VM still waits. */
public record PlacementPlan(List<Placement> placed, List<Unplaced> pending) {
  /**
   * @param why what made this worker the choice beyond room and the profile (it holds the image),
   *     or null
   */
  public record Placement(String vm, String worker, String why) {
    public Placement(String vm, String worker) {
      this(vm, worker, null);
    }
  }

  /**
   * @param fitsNowhere whether it fits no worker of the cluster, ready or not ({@link
   *     dev.rota.core.scheduling.placement.FitsNowhere}): it waits until the cluster changes
   */
  public record Unplaced(String vm, String reason, boolean fitsNowhere) {
    public Unplaced(String vm, String reason) {
      this(vm, reason, false);
    }
  }

  /** The same plan, each waiting VM named in {@code reasons} waiting for the reason given there. */
  public PlacementPlan explainedAs(java.util.Map<String, String> reasons) {
    if (reasons.isEmpty()) {
      return this;
    }
    return new PlacementPlan(
        placed,
        pending.stream()
            .map(
                u ->
                    reasons.containsKey(u.vm())
                        ? new Unplaced(u.vm(), reasons.get(u.vm()), u.fitsNowhere())
                        : u)
            .toList());
  }

  /** Nothing placed: every pending VM waits, for {@code reason}. */
  public static PlacementPlan waiting(java.util.List<PendingVm> pending, String reason) {
    return new PlacementPlan(
        java.util.List.of(), pending.stream().map(p -> new Unplaced(p.name(), reason)).toList());
  }
}
