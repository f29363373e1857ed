package dev.rota.bench;

import dev.rota.agentapi.Taint;
import dev.rota.agentapi.Toleration;
import dev.rota.core.model.Affinity;
import dev.rota.core.model.LabelConstraint;
import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.Rebalancing;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.core.scheduling.VmSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One scheduler term (health of every worker, placement of the pending VMs, reconciliation of every
 * agent's tasks) on a synthetic cluster: workers of 16 to 64 cpu in three label classes, half the
 * VMs already running (their tasks reported), half pending, requests of 1 to 8 cpu; 10% of the
 * pending VMs ask for a label no worker carries, so the reasons path is measured too.
 */
@State(Scope.Benchmark)
public class PlanTermBenchmark extends TermInputs {
  @Param({"1000x10000", "10000x100000"})
  public String size;

  @Param({"optimize-utilization", "distribute-load"})
  public String profile;

  /**
   * {@code plain}: every VM at the default priority, no preemption, no constraints; {@code
   * every-feature}: priorities from 0 to 100, the running VMs restarting, the cluster preempting,
   * one pending VM in four with a constraint on the workers' labels (a list, a version), one worker
   * in ten tainted ({@code NoSchedule} or {@code PreferNoSchedule}), one pending VM in eight
   * tolerating the {@code NoSchedule} taint and about one in eight preferring a zone, the VMs in
   * ten namespaces of which five have a CPU quota of four fifths of what their VMs ask.
   */
  @Param({"plain", "every-feature"})
  public String features;

  private SchedulerProfile schedulerProfile;

  @Setup
  public void build() {
    clear();
    String[] parts = size.split("x");
    int workerCount = Integer.parseInt(parts[0]);
    int vmCount = Integer.parseInt(parts[1]);
    schedulerProfile =
        profile.equals("distribute-load")
            ? SchedulerProfile.DISTRIBUTE_LOAD
            : SchedulerProfile.OPTIMIZE_UTILIZATION;
    boolean priorities = features.equals("every-feature");
    String[] kernels = {"5.10.0", "6.1.0", "6.12.3"};
    List<List<LabelConstraint>> rules =
        List.of(
            List.of(new LabelConstraint("zone", "notIn", List.of("a"))),
            List.of(new LabelConstraint("kernel", "version", List.of(">= 6.1"))),
            List.of(
                new LabelConstraint("zone", "in", List.of("b", "c")),
                new LabelConstraint("kernel", "version", List.of(">= 6.1, < 6.12"))));
    Random random = new Random(7);
    String[] zones = {"a", "b", "c"};
    Taint[] taints = {Taint.parse("dedicated=ci:NoSchedule"), Taint.parse("spot:PreferNoSchedule")};
    List<Toleration> tolerateCi = List.of(Toleration.parse("dedicated=ci:NoSchedule"));
    List<Affinity> preferB = List.of(new Affinity("zone", "=", List.of("b"), 50));
    for (int i = 0; i < workerCount; i++) {
      long cpu = 16L << random.nextInt(3);
      Map<String, String> workerLabels = new java.util.HashMap<>();
      workerLabels.put("zone", zones[i % 3]);
      workerLabels.put("kernel", kernels[random.nextInt(3)]);
      if (priorities && i % 10 == 9) {
        Taint t = taints[(i / 10) % 2];
        workerLabels.put(t.label(), t.labelValue());
      }
      worker(
          new Candidate(
              String.format("w%05d", i),
              Map.of("cpu", cpu, "memory", cpu * 4096),
              Map.copyOf(workerLabels),
              List.of("process"),
              WorkerHealth.READY,
              false));
    }
    if (priorities) {
      // A VM asks 4.5 cores on average: a tenth of them, four fifths of that.
      for (int n = 0; n < 5; n++) {
        quotas.put(
            "team-" + n, new dev.rota.core.model.Quota(vmCount * 36L / 100, null, null, null));
      }
    }
    for (int i = 0; i < vmCount; i++) {
      long cpu = 1 + random.nextInt(8);
      String namespace = priorities ? "team-" + (i % 10) : "default";
      Map<String, Long> request = Map.of("cpu", cpu, "memory", cpu * 1024);
      String name = String.format("vm%06d", i);
      if (i % 2 == 0) {
        running(
            vm(
                name,
                i,
                request,
                Map.of(),
                VmStatus.RUNNING,
                priorities ? random.nextInt(101) : 50,
                List.of(),
                List.of(),
                List.of(),
                namespace),
            workers.get(random.nextInt(workerCount)).name());
      } else {
        Map<String, String> labels =
            random.nextInt(10) == 0
                ? Map.of("zone", "nowhere")
                : Map.of("zone", zones[random.nextInt(3)]);
        vms.add(
            vm(
                name,
                i,
                request,
                labels,
                VmStatus.PENDING,
                priorities ? random.nextInt(101) : 50,
                priorities && random.nextInt(4) == 0
                    ? rules.get(random.nextInt(rules.size()))
                    : List.of(),
                priorities && random.nextInt(8) == 0 ? tolerateCi : List.of(),
                priorities && random.nextInt(8) == 0 ? preferB : List.of(),
                namespace));
      }
    }
  }

  /**
   * A VM that restarts always, at {@code priority}, meeting {@code constraints}, tolerating {@code
   * tolerations}, preferring workers by {@code affinities}, in {@code namespace}.
   */
  private static VmSnapshot vm(
      String name,
      long seq,
      Map<String, Long> request,
      Map<String, String> labels,
      VmStatus status,
      int priority,
      List<LabelConstraint> constraints,
      List<Toleration> tolerations,
      List<Affinity> affinities,
      String namespace) {
    return VmSnapshot.builder(name, seq, "process", request)
        .labels(labels)
        .status(status)
        .restartPolicy(RestartPolicy.ALWAYS)
        .priority(priority)
        .constraints(constraints)
        .tolerations(tolerations)
        .affinities(affinities)
        .namespace(namespace)
        .build();
  }

  @Benchmark
  public TermPlan planOneTerm() {
    return plan(schedulerProfile, Rebalancing.OFF, features.equals("every-feature"));
  }
}
