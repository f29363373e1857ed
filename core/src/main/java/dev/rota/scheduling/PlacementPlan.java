package dev.rota.scheduling;

import java.util.List;

/** What one term's placement decided: VMs placed on workers, and why each other VM still waits. */
public record PlacementPlan(List<Placement> placed, List<Unplaced> pending) {
  public record Placement(String vm, String worker) {}

  public record Unplaced(String vm, String reason) {}
}
