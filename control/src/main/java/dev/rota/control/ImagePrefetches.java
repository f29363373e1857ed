package dev.rota.control;

import dev.rota.store.ImagePrefetchRepository;
import dev.rota.store.ImagePrefetchRow;
import dev.rota.store.WorkerImages;
import dev.rota.store.WorkerPull;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Images fetched ahead onto workers, before VMs need them (as a DaemonSet pre-pulls in Kubernetes):
 * a prefetch names an image and a label selector, and every worker that matches and runs {@code
 * qemu} VMs is asked for it with its next heartbeat's answer, until it holds it. What each worker
 * has done is what its agent says: the images it holds, and the fetches under way or failed. The
 * prefetch is stored before it is acknowledged, so no host's death loses it.
 */
@Singleton
public class ImagePrefetches {
  /** The runtime whose workers keep an image cache. */
  static final String RUNTIME = "qemu";

  /** How long a host reuses the list of prefetches between heartbeats. */
  static final Duration FRESH = Duration.ofSeconds(2);

  /**
   * What one worker has done about a prefetch: {@code held}, {@code pulling}, {@code failed},
   * {@code waiting}.
   */
  public record WorkerProgress(String worker, String state, @Nullable String message) {
    public static final String HELD = "held";
    public static final String WAITING = "waiting";
  }

  /** A prefetch and each matching worker's progress, in worker name order. */
  public record Prefetch(ImagePrefetchRow row, List<WorkerProgress> workers) {}

  private final ImagePrefetchRepository prefetches;
  private final WorkerRepository workers;
  private final WorkerImages images;
  private final Clock clock;

  /** The prefetches as last read, and when: one value, so that a reader sees both together. */
  private record Known(List<ImagePrefetchRow> rows, Instant at) {}

  private volatile Known known = new Known(List.of(), Instant.MIN);

  public ImagePrefetches(
      ImagePrefetchRepository prefetches,
      WorkerRepository workers,
      WorkerImages images,
      Clock clock) {
    this.prefetches = prefetches;
    this.workers = workers;
    this.images = images;
    this.clock = clock;
  }

  /**
   * Stores a prefetch of {@code image} onto the workers matching {@code selector}; one already
   * asked for the same is returned instead, and {@code created} says which.
   */
  public Created create(String image, Map<String, String> selector) {
    Optional<ImagePrefetchRow> same =
        prefetches.inOrder().stream()
            .filter(p -> p.image().equals(image) && p.selector().equals(selector))
            .findFirst();
    if (same.isPresent()) {
      return new Created(view(same.get(), fleet()), false);
    }
    byte[] id = new byte[6];
    ThreadLocalRandom.current().nextBytes(id);
    ImagePrefetchRow row =
        prefetches.save(
            new ImagePrefetchRow(
                "prefetch-" + HexFormat.of().formatHex(id),
                image,
                Map.copyOf(selector),
                clock.instant()));
    known = new Known(List.of(), Instant.MIN);
    return new Created(view(row, fleet()), true);
  }

  /** A prefetch stored, and whether it is new. */
  public record Created(Prefetch prefetch, boolean created) {}

  /** Every prefetch, the fleet read once for them all. */
  public List<Prefetch> list() {
    Fleet fleet = fleet();
    return prefetches.inOrder().stream().map(p -> view(p, fleet)).toList();
  }

  public Optional<Prefetch> get(String id) {
    return prefetches.findById(id).map(p -> view(p, fleet()));
  }

  /** Forgets the prefetch; the images fetched stay in the workers' caches. */
  public boolean delete(String id) {
    if (prefetches.findById(id).isEmpty()) {
      return false;
    }
    prefetches.deleteById(id);
    known = new Known(List.of(), Instant.MIN);
    return true;
  }

  /** The images {@code worker} should fetch now: those of the prefetches it matches and lacks. */
  public List<String> wanted(String worker) {
    List<ImagePrefetchRow> all = current();
    if (all.isEmpty()) {
      return List.of();
    }
    WorkerRow row = workers.findById(worker).orElse(null);
    if (row == null) {
      return List.of();
    }
    Map<String, Instant> held = images.of(List.of(worker)).getOrDefault(worker, Map.of());
    return all.stream()
        .filter(p -> matches(row, p))
        .map(ImagePrefetchRow::image)
        .filter(image -> !held.containsKey(image))
        .distinct()
        .toList();
  }

  private List<ImagePrefetchRow> current() {
    Instant now = clock.instant();
    Known seen = known;
    if (seen.at().plus(FRESH).isBefore(now)) {
      seen = new Known(prefetches.inOrder(), now);
      known = seen;
    }
    return seen.rows();
  }

  private static boolean matches(WorkerRow worker, ImagePrefetchRow prefetch) {
    return worker.runtimes().contains(RUNTIME)
        && worker.labels().entrySet().containsAll(prefetch.selector().entrySet());
  }

  /** The workers that keep an image cache, with what each holds and is fetching. */
  private record Fleet(
      List<WorkerRow> workers,
      Map<String, Map<String, Instant>> held,
      Map<String, Map<String, WorkerPull>> pulls) {}

  private Fleet fleet() {
    List<WorkerRow> caching = new ArrayList<>();
    String after = "";
    while (true) {
      List<WorkerRow> page = workers.page(after, 500);
      page.stream().filter(w -> w.runtimes().contains(RUNTIME)).forEach(caching::add);
      if (page.size() < 500) {
        break;
      }
      after = page.get(page.size() - 1).name();
    }
    List<String> names = caching.stream().map(WorkerRow::name).toList();
    return new Fleet(caching, images.of(names), images.pulls(names));
  }

  private Prefetch view(ImagePrefetchRow prefetch, Fleet fleet) {
    List<String> names =
        fleet.workers().stream().filter(w -> matches(w, prefetch)).map(WorkerRow::name).toList();
    Map<String, Map<String, Instant>> held = fleet.held();
    Map<String, Map<String, WorkerPull>> pulls = fleet.pulls();
    List<WorkerProgress> progress = new ArrayList<>();
    for (String name : names) {
      if (held.getOrDefault(name, Map.of()).containsKey(prefetch.image())) {
        progress.add(new WorkerProgress(name, WorkerProgress.HELD, null));
        continue;
      }
      WorkerPull pull = pulls.getOrDefault(name, Map.of()).get(prefetch.image());
      progress.add(
          pull == null
              ? new WorkerProgress(name, WorkerProgress.WAITING, "asked with its next heartbeat")
              : new WorkerProgress(name, pull.state(), pull.message()));
    }
    return new Prefetch(prefetch, progress);
  }
}
