package dev.rota.store;

import io.micronaut.core.type.Argument;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The images each worker's agent says it holds, with when a task last used each, and the fetches it
 * has under way. Kept apart from the worker's registration ({@link WorkerRow}): they are the
 * agent's observation, written with its heartbeat, and a registration or pause written from an
 * older read must not undo them.
 */
@Singleton
public class WorkerImages {
  private static final Argument<Map<String, Instant>> TYPE =
      Argument.mapOf(String.class, Instant.class);

  private final WorkerRepository workers;
  private final JsonColumns json;

  public WorkerImages(WorkerRepository workers, JsonColumns json) {
    this.workers = workers;
    this.json = json;
  }

  private static final Argument<Map<String, WorkerPull>> PULLS =
      Argument.mapOf(String.class, WorkerPull.class);

  /**
   * A heartbeat that also says what the worker holds now, and what it is fetching; 0 when no such
   * worker.
   */
  public int heartbeat(
      String worker, Instant seen, Map<String, Instant> images, Map<String, WorkerPull> pulls) {
    return workers.heartbeatHolding(
        worker,
        seen,
        json.write(new TreeMap<>(images)),
        pulls.isEmpty() ? null : json.write(new TreeMap<>(pulls)));
  }

  /** The fetches the workers have under way or that failed, by worker and image. */
  public Map<String, Map<String, WorkerPull>> pulls(Collection<String> names) {
    Map<String, Map<String, WorkerPull>> byWorker = new HashMap<>();
    if (!names.isEmpty()) {
      workers.pullsOf(names).forEach(r -> byWorker.put(r.name(), json.read(r.pulls(), PULLS)));
    }
    return byWorker;
  }

  /** What the worker holds now, as its agent said on registering. */
  public void held(String worker, Map<String, Instant> images) {
    workers.holding(worker, json.write(new TreeMap<>(images)));
  }

  /** Every worker's images, for the term; workers whose agent said nothing are absent. */
  public Map<String, Map<String, Instant>> all() {
    return read(workers.allImages());
  }

  public Map<String, Map<String, Instant>> of(Collection<String> names) {
    return names.isEmpty() ? Map.of() : read(workers.imagesOf(names));
  }

  private Map<String, Map<String, Instant>> read(List<WorkerImagesRow> rows) {
    Map<String, Map<String, Instant>> byWorker = new HashMap<>();
    rows.forEach(r -> byWorker.put(r.name(), json.read(r.images(), TYPE)));
    return byWorker;
  }
}
