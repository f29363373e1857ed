package dev.rota.scheduler.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prometheus takes one set of label names per metric, and the Temporal SDK tags some calls of a
 * meter with more than others (an update's request latency carries more than a start's): the
 * registry refused those meters, and their figures never reached {@code /metrics}. Each {@code
 * temporal_} meter keeps the label names it was first registered with; a later one's other tags are
 * dropped and a missing one is empty.
 */
public class TemporalTagKeys implements MeterFilter {
  private final Map<String, List<String>> keys = new ConcurrentHashMap<>();

  @Override
  public Meter.Id map(Meter.Id id) {
    if (!id.getName().startsWith("temporal")) {
      return id;
    }
    List<String> mine = id.getTags().stream().map(Tag::getKey).sorted().toList();
    List<String> first = keys.computeIfAbsent(id.getName(), name -> mine);
    if (first.equals(mine)) {
      return id;
    }
    return id.replaceTags(
        first.stream()
            .map(key -> Tag.of(key, Optional.ofNullable(id.getTag(key)).orElse("")))
            .toList());
  }
}
