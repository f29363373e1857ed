package dev.rota.bench;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.HealthSettings;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.core.scheduling.PlacedTask;
import dev.rota.core.scheduling.Rebalancing;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.core.scheduling.TermPlanner;
import dev.rota.core.scheduling.VmSnapshot;
import dev.rota.core.scheduling.WorkerProbeState;
import dev.rota.core.scheduling.WorkerSnapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one term plans from, built by a benchmark's set-up: ready workers whose agents all answered.
 * The measuring is the same for every plan benchmark, so it is said here once (JMH reads it from
 * the superclass).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgs = {"-Xms2g", "-Xmx2g"})
abstract class TermInputs {
  protected final Instant now = Instant.parse("2026-01-01T00:00:00Z");
  protected final List<WorkerSnapshot> workers = new ArrayList<>();
  protected final List<VmSnapshot> vms = new ArrayList<>();
  protected final List<PlacedTask> placed = new ArrayList<>();
  protected final Map<String, List<ObservedTask>> reported = new HashMap<>();

  /** The namespaces' quotas, by namespace; none unless a benchmark gives some. */
  protected final Map<String, dev.rota.core.model.Quota> quotas = new HashMap<>();

  protected void clear() {
    quotas.clear();
    workers.clear();
    vms.clear();
    placed.clear();
    reported.clear();
  }

  /** A ready worker that answered this term, listing no task yet. */
  protected void worker(Candidate c) {
    WorkerProbeState probe =
        new WorkerProbeState(
            c.name(), WorkerHealth.READY, now.minusSeconds(2), now, true, 0, null, null);
    workers.add(new WorkerSnapshot(c, probe, "agent answering"));
    reported.put(c.name(), new ArrayList<>());
  }

  /** A VM running generation 0 on {@code worker}, as placed and as its agent lists it. */
  protected void running(VmSnapshot vm, String worker) {
    vms.add(vm);
    placed.add(new PlacedTask(vm.name(), vm.seq(), 0, worker, TaskState.RUNNING));
    reported.get(worker).add(new ObservedTask(vm.name() + ".0", "running", null, null));
  }

  protected TermPlan plan(SchedulerProfile profile, Rebalancing rebalancing) {
    return plan(profile, rebalancing, false);
  }

  /**
   * As {@link #plan(SchedulerProfile, Rebalancing)}; with {@code preemption}, the cluster preempts.
   */
  protected TermPlan plan(SchedulerProfile profile, Rebalancing rebalancing, boolean preemption) {
    return TermPlanner.plan(
        now,
        null,
        profile,
        HealthSettings.defaults(),
        workers,
        vms,
        placed,
        reported,
        rebalancing,
        null,
        preemption,
        quotas);
  }
}
