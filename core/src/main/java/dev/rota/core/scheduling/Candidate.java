package dev.rota.core.scheduling;

import dev.rota.agentapi.Taint;
import dev.rota.core.model.WorkerHealth;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A worker as placement sees it: what it offers and whether it may take VMs.
 *
 * @param images the images its agent holds, each with when a task last used it (Scoot's snapshot
 *     groups): a VM of one of them starts sooner there
 * @param taints the taints its labels carry ({@link Taint#of}), read once per term rather than by
 *     every check that asks
 */
public record Candidate(
    String name,
    Map<String, Long> capacity,
    Map<String, String> labels,
    List<String> runtimes,
    WorkerHealth health,
    boolean paused,
    Map<String, Instant> images,
    List<Taint> taints) {

  public Candidate(
      String name,
      Map<String, Long> capacity,
      Map<String, String> labels,
      List<String> runtimes,
      WorkerHealth health,
      boolean paused,
      Map<String, Instant> images) {
    this(name, capacity, labels, runtimes, health, paused, images, Taint.of(labels));
  }

  public Candidate(
      String name,
      Map<String, Long> capacity,
      Map<String, String> labels,
      List<String> runtimes,
      WorkerHealth health,
      boolean paused) {
    this(name, capacity, labels, runtimes, health, paused, Map.of());
  }

  public boolean takesPlacements() {
    return health == WorkerHealth.READY && !paused;
  }

  /** The same worker with the health this term judged it to have. */
  public Candidate withHealth(WorkerHealth judged) {
    return new Candidate(name, capacity, labels, runtimes, judged, paused, images, taints);
  }

  /** When a task last used {@code image} here; null when it holds no such image. */
  public Instant lastUsed(String image) {
    return image == null ? null : images.get(image);
  }
}
