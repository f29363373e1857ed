package dev.rota.bench;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.Rebalancing;
import dev.rota.core.scheduling.SetSnapshot;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.core.scheduling.VmSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A whole term under {@code distribute-load} with rebalancing on, on go-orchestrator's scenarios:
 * single-instance tasks (VM sets of one replica), all running and reported, evenly on the first
 * workers; {@code joined} adds empty workers, which the term fills (its move counts are asserted in
 * {@code RebalancerTest}); {@code idle} adds none, so the term finds nothing to move.
 */
@State(Scope.Benchmark)
public class RebalanceBenchmark extends TermInputs {
  /** workers + joining x tasks. */
  @Param({"idle-1000+0x10000", "joined-1000+100x10000", "joined-10+2x100"})
  public String scenario;

  private Rebalancing rebalancing;

  @Setup
  public void build() {
    clear();
    String[] sizes = scenario.substring(scenario.indexOf('-') + 1).split("[+x]");
    int existing = Integer.parseInt(sizes[0]);
    int joining = Integer.parseInt(sizes[1]);
    int taskCount = Integer.parseInt(sizes[2]);
    for (int i = 0; i < existing + joining; i++) {
      worker(
          new Candidate(
              String.format("w%05d", i),
              Map.of("cpu", 64L, "memory", 65536L),
              Map.of(),
              List.of("process"),
              WorkerHealth.READY,
              false));
    }
    Map<String, SetSnapshot> sets = new HashMap<>();
    for (int i = 0; i < taskCount; i++) {
      String set = String.format("task%06d", i);
      sets.put(set, new SetSnapshot(set, 1, 1));
      running(
          VmSnapshot.builder(set + "-0", i, "process", Map.of("cpu", 1L, "memory", 512L))
              .status(VmStatus.RUNNING)
              .set(set)
              .build(),
          workers.get(i % existing).name());
    }
    rebalancing = new Rebalancing(1000, sets);
  }

  @Benchmark
  public TermPlan planOneTerm() {
    return plan(SchedulerProfile.DISTRIBUTE_LOAD, rebalancing);
  }
}
