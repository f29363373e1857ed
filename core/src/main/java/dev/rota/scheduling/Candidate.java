package dev.rota.scheduling;

import dev.rota.model.WorkerHealth;
import java.util.List;
import java.util.Map;

/** A worker as placement sees it: what it offers and whether it may take VMs. */
public record Candidate(
    String name,
    Map<String, Long> capacity,
    Map<String, String> labels,
    List<String> runtimes,
    WorkerHealth health,
    boolean paused) {

  public boolean takesPlacements() {
    return health == WorkerHealth.READY && !paused;
  }
}
