package dev.rota.api.images;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import dev.rota.control.ImagePrefetches;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A prefetch: the image, the selector, and what each matching worker has done ({@code held}, {@code
 * pulling} with how far, {@code failed} with why, {@code waiting} to be asked); {@code held} counts
 * those that hold it.
 */
// Every field, empty ones too: a selector of none and a prefetch no worker matches yet are answers.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record ImagePrefetchView(
    String name,
    String image,
    Map<String, String> workerSelector,
    Instant createdAt,
    int held,
    List<WorkerProgressView> workers)
    implements Named {

  /** One worker's progress. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Serdeable
  public record WorkerProgressView(String worker, String state, @Nullable String message) {}

  static ImagePrefetchView of(ImagePrefetches.Prefetch p) {
    List<WorkerProgressView> workers =
        p.workers().stream()
            .map(w -> new WorkerProgressView(w.worker(), w.state(), w.message()))
            .toList();
    return new ImagePrefetchView(
        p.row().id(),
        p.row().image(),
        p.row().selector(),
        p.row().createdAt(),
        (int)
            workers.stream()
                .filter(w -> w.state().equals(ImagePrefetches.WorkerProgress.HELD))
                .count(),
        workers);
  }
}
