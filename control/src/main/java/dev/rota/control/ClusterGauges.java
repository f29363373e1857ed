package dev.rota.control;

import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import dev.rota.scheduler.temporal.TemporalFrontend;
import dev.rota.store.Allocation;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.store.Count;
import dev.rota.store.VmRepository;
import dev.rota.store.WorkerAllocations;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Orchard's gauges, read from the store when scraped, so that every host says the same: workers by
 * health, VMs by status, and each worker's resources (capacity, allocated to the VMs placed on it,
 * free); and what the alert rules watch: the oldest pending VM's wait, whether the scheduler runs
 * its terms, and whether this host reaches its database and Temporal. A scrape with the database
 * down still answers, saying so, rather than failing as a whole.
 */
@Singleton
public class ClusterGauges {
  private static final Logger log = LoggerFactory.getLogger(ClusterGauges.class);

  private final WorkerRepository workers;
  private final VmRepository vms;
  private final WorkerAllocations allocations;
  private final MultiGauge byHealth;
  private final MultiGauge byStatus;
  private final MultiGauge capacity;
  private final MultiGauge allocated;
  private final MultiGauge free;
  private final ClusterStatusRepository status;
  private final WorkflowKeeper keeper;
  private final TemporalFrontend temporal;
  private final Clock clock;
  private final AtomicLong oldestPendingSeconds;
  private final AtomicLong lastTermSeconds;
  private final AtomicLong schedulerUp;
  private final AtomicLong databaseUp;
  private final AtomicLong temporalUp;

  public ClusterGauges(
      WorkerRepository workers,
      VmRepository vms,
      WorkerAllocations allocations,
      ClusterStatusRepository status,
      WorkflowKeeper keeper,
      TemporalFrontend temporal,
      Clock clock,
      MeterRegistry registry) {
    this.status = status;
    this.keeper = keeper;
    this.temporal = temporal;
    this.clock = clock;
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
    this.oldestPendingSeconds =
        gauge(
            registry,
            "rota.vm.oldest.pending.seconds",
            "How long the VM pending longest has waited since it last became pending");
    this.lastTermSeconds =
        gauge(
            registry,
            "rota.scheduler.last.term.timestamp.seconds",
            "When the scheduler's last term began (Unix seconds; 0 before the first)");
    this.schedulerUp =
        gauge(
            registry,
            "rota.scheduler.up",
            "1 while the scheduler runs its terms in time, as GET /v1/cluster judges it");
    this.databaseUp =
        gauge(registry, "rota.database.up", "1 when this host read its database at this scrape");
    this.temporalUp =
        gauge(
            registry,
            "rota.temporal.up",
            "1 when this host's Temporal server answered its health check at this scrape");
  }

  /**
   * Reads the store once and sets every gauge; a worker or VM gone since the last scrape drops out.
   */
  public void refresh() {
    temporalUp.set(temporal.ask().serving() ? 1 : 0);
    try {
      readStore();
      databaseUp.set(1);
    } catch (RuntimeException e) {
      databaseUp.set(0);
      schedulerUp.set(0); // no term runs without the database
      log.debug("metrics: the database did not answer", e);
    }
  }

  /** A gauge of one value, set at each scrape. */
  private static AtomicLong gauge(MeterRegistry registry, String name, String description) {
    AtomicLong value = new AtomicLong();
    Gauge.builder(name, value, AtomicLong::get).description(description).register(registry);
    return value;
  }

  private void readStore() {
    Instant now = clock.instant();
    oldestPendingSeconds.set(
        vms.oldestPendingSince()
            .map(since -> Math.max(0, Duration.between(since, now).toSeconds()))
            .orElse(0L));
    Instant lastTermAt =
        status.findById(ClusterWorkflow.WORKFLOW_ID).map(ClusterStatusRow::lastTermAt).orElse(null);
    lastTermSeconds.set(lastTermAt == null ? 0 : lastTermAt.getEpochSecond());
    schedulerUp.set(keeper.schedulerHealth(lastTermAt).degraded() ? 0 : 1);
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
