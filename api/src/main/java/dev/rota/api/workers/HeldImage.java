package dev.rota.api.workers;

import dev.rota.api.Rfc3339;
import dev.rota.api.problem.Problems;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An image a worker's agent holds, and when a task last used it: in a registration or heartbeat
 * ({@code images}), and in the worker as shown.
 *
 * @param lastUsedAt an RFC 3339 time
 */
@Serdeable
public record HeldImage(
    @NotBlank @Size(max = 2048) String image,
    @NotNull
        @Size(max = 64)
        @io.swagger.v3.oas.annotations.media.Schema(format = "date-time", pattern = Rfc3339.PATTERN)
        String lastUsedAt) {
  /** The most an agent may report; an agent keeps its 32 most recent by default. */
  public static final int MAX = 64;

  /** The report as the store keeps it; a time that does not parse is a 400 naming its entry. */
  static Map<String, Instant> parse(List<HeldImage> images) {
    Map<String, Instant> byImage = new HashMap<>();
    for (int i = 0; i < images.size(); i++) {
      HeldImage held = images.get(i);
      int at = i;
      Instant used =
          Rfc3339.parse(held.lastUsedAt())
              .orElseThrow(
                  () ->
                      Problems.badRequest(
                          "images." + at + ".lastUsedAt",
                          "must be an RFC 3339 time such as 2026-11-23T07:00:00Z, got "
                              + held.lastUsedAt()));
      byImage.merge(held.image(), used, (a, b) -> a.isAfter(b) ? a : b);
    }
    return byImage;
  }

  /** As shown: the most recently used first. */
  static List<HeldImage> shown(Map<String, Instant> images) {
    return images.entrySet().stream()
        .sorted(
            Map.Entry.<String, Instant>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
        .map(e -> new HeldImage(e.getKey(), e.getValue().toString()))
        .toList();
  }
}
