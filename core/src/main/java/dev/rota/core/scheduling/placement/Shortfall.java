package dev.rota.core.scheduling.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Every resource a VM asks more of than the best worker has, named together, so that a user who
 * asked too much of two learns of both at once: {@code needs cpu 16 and memory 65536; the most free
 * on a matching worker is cpu 8 and memory 2048}. One resource short reads {@code needs cpu 16; the
 * most free on a matching worker is 8}.
 */
final class Shortfall {
  private Shortfall() {}

  /**
   * @param best the most of a resource the best worker has
   * @param whose what {@code best} is, before its figures: {@code the most free on a matching
   *     worker is}
   * @param after what follows the figures ({@code in all}), or nothing
   */
  static Optional<String> of(
      Map<String, Long> request, ToLongFunction<String> best, String whose, String after) {
    Map<String, Long> most = new TreeMap<>();
    request.forEach(
        (resource, need) -> {
          long has = best.applyAsLong(resource);
          if (need > has) {
            most.put(resource, has);
          }
        });
    if (most.isEmpty()) {
      return Optional.empty();
    }
    List<String> needs = new ArrayList<>();
    List<String> has = new ArrayList<>();
    most.forEach(
        (resource, figure) -> {
          needs.add(resource + " " + request.get(resource));
          // One resource short: its figure alone; several: each with its name.
          has.add(most.size() == 1 ? Long.toString(figure) : resource + " " + figure);
        });
    return Optional.of(
        "needs "
            + String.join(" and ", needs)
            + "; "
            + whose
            + " "
            + String.join(" and ", has)
            + after);
  }

  /** {@code cpu=4, memory=512}, in key order: what is asked, when no one resource is short. */
  static String pairs(Map<String, ?> map) {
    return new TreeMap<>(map)
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(java.util.stream.Collectors.joining(", "));
  }
}
