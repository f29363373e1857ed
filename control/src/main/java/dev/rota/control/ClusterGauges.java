package dev.rota.control;

import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import dev.rota.store.Allocation;
import dev.rota.store.Count;
import dev.rota.store.VmRepository;
import dev.rota.store.WorkerAllocations;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Orchard's gauges, read from the store when scraped, so that every host says the same: workers by
 * health, VMs by status, and each worker's resources (capacity, allocated to the VMs placed on it,
 * free).
 */
@Singleton
public class ClusterGauges {

  private final WorkerRepository workers;
  private final VmRepository vms;
  private final WorkerAllocations allocations;
  private final MultiGauge byHealth;
  private final MultiGauge byStatus;
  private final MultiGauge capacity;
  private final MultiGauge allocated;
  private final MultiGauge free;

  public ClusterGauges(
      WorkerRepository workers,
      VmRepository vms,
      WorkerAllocations allocations,
      MeterRegistry registry) {
    this.allocations = allocations;
    this.workers = workers;
    this.vms = vms;
    this.byHealth =
        MultiGauge.builder("rota.workers").description("Workers by health").register(registry);
    this.byStatus = MultiGauge.builder("rota.vms").description("VMs by status").register(registry);
    this.capacity =
        MultiGauge.builder("rota.worker.resources.capacity")
            .description("What a worker offers, per resource")
            .register(registry);
    this.allocated =
        MultiGauge.builder("rota.worker.resources.allocated")
            .description("What the VMs placed on a worker hold, per resource")
            .register(registry);
    this.free =
        MultiGauge.builder("rota.worker.resources.free")
            .description("What a worker has left, per resource")
            .register(registry);
  }

  /**
   * Reads the store once and sets every gauge; a worker or VM gone since the last scrape drops out.
   */
  public void refresh() {
    byHealth.register(rows(WorkerHealth.values(), workers.countByHealth(), "health"), true);
    byStatus.register(rows(VmStatus.values(), vms.countByStatus(), "status"), true);

    List<WorkerRow> all = new ArrayList<>();
    workers.findAll().forEach(all::add);
    Map<String, Allocation> held = allocations.of(all.stream().map(WorkerRow::name).toList());
    List<MultiGauge.Row<?>> capacityRows = new ArrayList<>();
    List<MultiGauge.Row<?>> allocatedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> freeRows = new ArrayList<>();
    for (WorkerRow w : all) {
      Map<String, Long> holds = held.getOrDefault(w.name(), Allocation.NONE).resources();
      TreeSet<String> resources = new TreeSet<>(w.resources().keySet());
      resources.addAll(holds.keySet());
      for (String r : resources) {
        Tags tags = Tags.of("worker", w.name(), "resource", r);
        long has = w.resources().getOrDefault(r, 0L);
        long used = holds.getOrDefault(r, 0L);
        capacityRows.add(MultiGauge.Row.of(tags, has));
        allocatedRows.add(MultiGauge.Row.of(tags, used));
        freeRows.add(MultiGauge.Row.of(tags, Math.max(0, has - used)));
      }
    }
    capacity.register(capacityRows, true);
    allocated.register(allocatedRows, true);
    free.register(freeRows, true);
  }

  /** Every value of the enum, 0 when none, so that a status never seen still has its series. */
  private static <E extends Enum<E> & dev.rota.core.model.WireName> List<MultiGauge.Row<?>> rows(
      E[] values, List<Count> counts, String tag) {
    Map<String, Long> byLabel = new TreeMap<>();
    for (E v : values) {
      byLabel.put(v.wireName(), 0L);
    }
    counts.forEach(c -> byLabel.merge(c.label(), c.total(), Long::sum));
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    byLabel.forEach((label, n) -> rows.add(MultiGauge.Row.of(Tags.of(tag, label), n)));
    return rows;
  }
}
