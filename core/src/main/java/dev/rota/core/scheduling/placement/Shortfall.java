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
    List<String> needs = new ArrayList<>();
    List<String> has = new ArrayList<>();
    for (Map.Entry<String, Long> need : new TreeMap<>(request).entrySet()) {
      long most = best.applyAsLong(need.getKey());
      if (need.getValue() > most) {
        needs.add(need.getKey() + " " + need.getValue());
        has.add(need.getKey() + " " + most);
      }
    }
    if (needs.isEmpty()) {
      return Optional.empty();
    }
    String figures =
        has.size() == 1
            ? has.get(0).substring(has.get(0).indexOf(' ') + 1)
            : String.join(" and ", has);
    return Optional.of(
        "needs " + String.join(" and ", needs) + "; " + whose + " " + figures + after);
  }
}
