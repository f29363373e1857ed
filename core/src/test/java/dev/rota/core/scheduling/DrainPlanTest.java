package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.Spread;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WorkerHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a term takes off a draining worker: moves before the deadline, evictions after it, and its
 * progress line.
 */
class DrainPlanTest {
  static final Instant T = Instant.parse("2026-01-01T00:10:00Z");
  static final Instant DEADLINE = T.plus(Duration.ofHours(1));

  private final List<WorkerSnapshot> workers = new ArrayList<>();
  private final List<VmSnapshot> vms = new ArrayList<>();
  private final List<PlacedTask> tasks = new ArrayList<>();
  private Map<String, SetSnapshot> sets = Map.of();
  private int movesPerTerm;
  private SchedulerProfile profile = SchedulerProfile.OPTIMIZE_UTILIZATION;

  private DrainPlanTest worker(String name, long cpu) {
    return worker(name, cpu, Map.of());
  }

  private DrainPlanTest worker(String name, long cpu, Map<String, String> labels) {
    Candidate c = Fixtures.withLabels(Fixtures.ready(name, cpu), labels);
    workers.add(new WorkerSnapshot(c, probe(name), "agent answering"));
    return this;
  }

  /** A worker being drained: paused, as the API leaves it, with a deadline. */
  private DrainPlanTest draining(String name, long cpu, Instant deadline) {
    Candidate c = Fixtures.paused(Fixtures.ready(name, cpu));
    workers.add(new WorkerSnapshot(c, probe(name), "agent answering", deadline));
    return this;
  }

  private static WorkerProbeState probe(String name) {
    return new WorkerProbeState(name, WorkerHealth.READY, T, T, true, 0, null, null);
  }

  private DrainPlanTest running(String vm, long cpu, RestartPolicy policy, String worker) {
    return running(vm, cpu, policy, worker, null, Spread.NONE);
  }

  private DrainPlanTest running(
      String vm, long cpu, RestartPolicy policy, String worker, String set, Spread spread) {
    long seq = vms.size() + 1;
    vms.add(
        VmSnapshot.builder(vm, seq, "process", Map.of("cpu", cpu, "memory", 512L))
            .status(VmStatus.RUNNING)
            .set(set)
            .spread(spread)
            .restartPolicy(policy)
            .build());
    tasks.add(new PlacedTask(vm, seq, 0, worker, TaskState.RUNNING));
    return this;
  }

  private DrainPlanTest pending(String vm, long cpu) {
    vms.add(
        VmSnapshot.builder(vm, vms.size() + 1, "process", Map.of("cpu", cpu, "memory", 512L))
            .build());
    return this;
  }

  private TermPlan plan(Instant now) {
    return TermPlanner.plan(
        now,
        null,
        profile,
        HealthSettings.defaults(),
        workers,
        vms,
        tasks,
        Map.of(),
        new Rebalancing(movesPerTerm, sets),
        pausedBecause);
  }

  /** Scheduling paused for the cluster, for {@code reason}. */
  private DrainPlanTest paused(String reason) {
    pausedBecause = reason;
    return this;
  }

  private String pausedBecause;

  private static List<String> moves(TermPlan p) {
    return p.moves().stream().map(m -> m.vm() + ":" + m.from() + "->" + m.to()).toList();
  }

  private static List<String> evicted(TermPlan p) {
    return p.evictions().stream()
        .map(e -> e.vm() + "." + e.generation() + "@" + e.worker())
        .toList();
  }

  /**
   * Paused for the cluster, a term places nothing and moves nothing, not even off a draining worker
   * (nor to rebalance); each waiting VM says why; a drain's deadline still evicts what is left.
   */
  @Test
  void aPausedClusterPlacesAndMovesNothingAndSaysWhyButADrainsDeadlineStillHolds() {
    draining("w1", 8, DEADLINE)
        .worker("w2", 8)
        .running("web", 2, RestartPolicy.ALWAYS, "w1")
        .pending("new", 1)
        .paused("upgrading the fleet");
    TermPlan before = plan(T);
    assertEquals(List.of(), moves(before));
    assertEquals(List.of(), before.placement().placed());
    assertEquals(
        List.of(
            new PlacementPlan.Unplaced(
                "new", "scheduling is paused for the cluster: upgrading the fleet")),
        before.placement().pending());
    assertEquals(List.of("web.0@w1"), evicted(plan(DEADLINE.plusSeconds(1))));

    pausedBecause = null;
    assertEquals(List.of("web:w1->w2"), moves(plan(T)), "resumed: the drain moves it");
  }

  @Test
  void vmsThatRestartMoveAtOnceAndTheOthersWaitForTheDeadline() {
    draining("w1", 8, DEADLINE)
        .worker("w2", 8)
        .running("web", 2, RestartPolicy.ALWAYS, "w1")
        .running("job", 1, RestartPolicy.ON_FAILURE, "w1")
        .running("once", 1, RestartPolicy.NEVER, "w1")
        .pending("new", 1);
    TermPlan p = plan(T);
    assertEquals(
        List.of("web:w1->w2", "job:w1->w2"),
        moves(p),
        "oldest first, each placed as placement would place it");
    assertEquals(
        0,
        p.moves().get(0).generation(),
        "the running generation stays until the next has started");
    assertTrue(
        p.moves().get(0).why().contains("worker w1 is draining, deadline " + DEADLINE),
        p.moves().get(0).why());
    assertEquals(
        List.of("new@w2"),
        p.placement().placed().stream().map(x -> x.vm() + "@" + x.worker()).toList(),
        "a draining worker takes no new VMs");
    assertEquals(List.of(), evicted(p));
    assertEquals(
        "draining until "
            + DEADLINE
            + ": 3 VMs left; 2 moving, 1 without a restart policy, stopped at the deadline",
        p.drainProgress().get("w1"));
  }

  @Test
  void aVmWithAPersistentDiskIsNotMovedEvenWithARestartPolicy() {
    draining("w1", 8, DEADLINE).worker("w2", 8);
    vms.add(
        VmSnapshot.builder("dev", 1, "qemu", Map.of("cpu", 1L, "memory", 512L))
            .status(VmStatus.RUNNING)
            .restartPolicy(RestartPolicy.ALWAYS)
            .keepsThroughDisconnect(true)
            .persistentDisk(true)
            .diskOn("w1")
            .build());
    tasks.add(new PlacedTask("dev", 1, 0, "w1", TaskState.RUNNING));
    TermPlan p = plan(T);
    assertEquals(List.of(), moves(p), "its disk is on w1, and is not copied");
    assertEquals(
        "draining until "
            + DEADLINE
            + ": 1 VM left; 1 with a persistent disk, which stays: stopped at the deadline, and"
            + " waiting for this worker",
        p.drainProgress().get("w1"));
    assertEquals(List.of("dev.0@w1"), evicted(plan(DEADLINE)), "the deadline holds for it too");
  }

  @Test
  void aRunningVmThatMovesLiveIsMovedWhateverItsRestartPolicy() {
    draining("w1", 8, DEADLINE).worker("w2", 8);
    vms.add(devBox(VmStatus.RUNNING, 0, null));
    tasks.add(new PlacedTask("dev", 1, 0, "w1", TaskState.RUNNING));
    TermPlan p = plan(T);
    assertEquals(List.of("dev:w1->w2"), moves(p), "its memory and disk go with it");
    assertEquals(
        "draining until " + DEADLINE + ": 1 VM left; 1 moving", p.drainProgress().get("w1"));
  }

  @Test
  void aVmThatMovesLiveButDoesNotRunStaysWithItsDisk() {
    draining("w1", 8, DEADLINE).worker("w2", 8);
    vms.add(devBox(VmStatus.PAUSED, 0, null));
    tasks.add(new PlacedTask("dev", 1, 0, "w1", TaskState.RUNNING));
    assertEquals(List.of(), moves(plan(T)), "a paused guest is not moved");
  }

  @Test
  void aLiveMoveThatFailedIsTriedAgainOnlyOnceItsNewCopysRecordIsGone() {
    draining("w1", 8, DEADLINE).worker("w2", 8);
    vms.add(devBox(VmStatus.RUNNING, 0, null));
    tasks.add(new PlacedTask("dev", 1, 0, "w1", TaskState.RUNNING));
    tasks.add(new PlacedTask("dev", 1, 1, "w2", TaskState.FAILED)); // the failed arrival
    TermPlan p = plan(T);
    assertEquals(List.of(), moves(p), "its task id is still taken");
    assertEquals(
        "draining until " + DEADLINE + ": 1 VM left; 1 moving", p.drainProgress().get("w1"));
    tasks.remove(1);
    assertEquals(List.of("dev:w1->w2"), moves(plan(T)));
  }

  /** A running dev box on w1 with a persistent disk there, moved live, with no restart policy. */
  private static VmSnapshot devBox(VmStatus status, int generation, String movingFrom) {
    return Fixtures.withDisk(
        VmSnapshot.builder(
                "dev",
                1,
                "process", // the runtime the fixtures' workers run
                Map.of("cpu", 1L, "memory", 512L))
            .status(status)
            .restartCount(generation)
            .movingFrom(movingFrom)
            .build(),
        "w1",
        true);
  }

  @Test
  void theTermWakesWhenADeadlinePasses() {
    Instant soon = T.plusSeconds(5); // before any worker's health could change
    draining("w1", 8, soon).worker("w2", 8);
    assertEquals(soon, plan(T).nextDeadline());
    assertTrue(plan(soon).nextDeadline().isAfter(soon), "a passed deadline wakes nobody");
  }

  @Test
  void onceTheDeadlinePassedEveryVmStillThereIsEvicted() {
    draining("w1", 8, DEADLINE)
        .worker("w2", 8)
        .running("web", 2, RestartPolicy.ALWAYS, "w1")
        .running("once", 1, RestartPolicy.NEVER, "w1")
        .running("elsewhere", 1, RestartPolicy.NEVER, "w2");
    TermPlan p = plan(DEADLINE);
    assertEquals(List.of(), moves(p), "too late to keep anything running while it moves");
    assertEquals(List.of("web.0@w1", "once.0@w1"), evicted(p));
    assertEquals(DEADLINE, p.evictions().get(0).deadline());
    assertEquals(
        "deadline " + DEADLINE + " passed: 2 VMs left, being stopped or started elsewhere",
        p.drainProgress().get("w1"));
  }

  @Test
  void aVmWithNoRoomElsewhereWaitsAndTheProgressSaysWhy() {
    draining("w1", 8, DEADLINE)
        .worker("w2", 2)
        .running("big", 4, RestartPolicy.ALWAYS, "w1")
        .running("small", 1, RestartPolicy.ALWAYS, "w1");
    TermPlan p = plan(T);
    assertEquals(List.of("small:w1->w2"), moves(p));
    String progress = p.drainProgress().get("w1");
    assertTrue(
        progress.startsWith(
            "draining until "
                + DEADLINE
                + ": 2 VMs left; 1 moving, 1 waiting for room elsewhere ("),
        progress);
    assertTrue(progress.contains("cpu"), "the placer's reason names what is short: " + progress);
  }

  @Test
  void aSetsReplicasMoveNoMoreAtOnceThanItsMaxUnavailableAllows() {
    sets = Map.of("web", new SetSnapshot("web", 3, 1));
    draining("w1", 8, DEADLINE)
        .worker("w2", 8)
        .running("web-1", 1, RestartPolicy.ALWAYS, "w1", "web", Spread.NONE)
        .running("web-2", 1, RestartPolicy.ALWAYS, "w1", "web", Spread.NONE)
        .running("web-3", 1, RestartPolicy.ALWAYS, "w1", "web", Spread.NONE);
    TermPlan p = plan(T);
    assertEquals(List.of("web-1:w1->w2"), moves(p));
    assertEquals(
        "draining until "
            + DEADLINE
            + ": 3 VMs left; 1 moving, 2 waiting for set web's moves under way "
            + "(maxUnavailable)",
        p.drainProgress().get("w1"));
  }

  @Test
  void aMoveUnderWayCountsAsMovingAndItsReplicaIsNotMovedAgain() {
    sets = Map.of("web", new SetSnapshot("web", 2, 1));
    draining("w1", 8, DEADLINE).worker("w2", 8);
    // web-1's new copy (generation 1) is placed on w2 and has not started; generation 0 still runs
    // on w1.
    vms.add(
        VmSnapshot.builder("web-1", 1, "process", Map.of("cpu", 1L, "memory", 512L))
            .status(VmStatus.RUNNING)
            .restartCount(1)
            .set("web")
            .movingFrom("w1")
            .restartPolicy(RestartPolicy.ALWAYS)
            .build());
    tasks.add(new PlacedTask("web-1", 1, 0, "w1", TaskState.RUNNING));
    tasks.add(new PlacedTask("web-1", 1, 1, "w2", TaskState.SCHEDULED));
    running("web-2", 1, RestartPolicy.ALWAYS, "w1", "web", Spread.NONE);
    TermPlan p = plan(T);
    assertEquals(
        List.of(), moves(p), "web-1 is moving already, and the set allows one move at a time");
    assertEquals(
        "draining until "
            + DEADLINE
            + ": 2 VMs left; 1 moving, 1 waiting for set web's moves under way "
            + "(maxUnavailable)",
        p.drainProgress().get("w1"));
  }

  @Test
  void whatStaysOnADrainingWorkerDoesNotCountForItsSetsSpread() {
    sets = Map.of("web", new SetSnapshot("web", 2, 2));
    draining("w1", 8, DEADLINE).worker("w2", 8).worker("w3", 8);
    running("web-1", 1, RestartPolicy.ALWAYS, "w1", "web", Spread.DISTINCT_WORKERS)
        .running("web-2", 1, RestartPolicy.ALWAYS, "w2", "web", Spread.DISTINCT_WORKERS);
    TermPlan p = plan(T);
    assertEquals(List.of("web-1:w1->w3"), moves(p), "w2 holds a replica already; w1's is leaving");
  }

  @Test
  void aDrainedWorkerSaysSo() {
    draining("w0", 8, DEADLINE).worker("w1", 8);
    assertEquals("drained: no VMs left", plan(T).drainProgress().get("w0"));
    assertTrue(plan(DEADLINE.plusSeconds(60)).evictions().isEmpty());
  }

  @Test
  void aTermThatDrainsDoesNotAlsoRebalanceSoThatNoSetExceedsItsAllowance() {
    profile = SchedulerProfile.DISTRIBUTE_LOAD;
    movesPerTerm = 10;
    sets = Map.of("a", new SetSnapshot("a", 1, 1), "b", new SetSnapshot("b", 2, 2));
    draining("w0", 8, DEADLINE)
        .worker("w1", 8)
        .worker("w2", 8)
        .running("b-1", 1, RestartPolicy.ALWAYS, "w1", "b", Spread.NONE)
        .running("b-2", 1, RestartPolicy.ALWAYS, "w1", "b", Spread.NONE);
    assertEquals(
        List.of("b-2:w1->w2"), moves(plan(T)), "with nothing to drain, the load is balanced");
    running("r", 1, RestartPolicy.ALWAYS, "w0", "a", Spread.NONE);
    assertEquals(
        List.of("r:w0->w2"),
        moves(plan(T)),
        "the drain alone; the next term balances what it left");
  }

  @Test
  void aVmNotYetRunningOnADrainingWorkerIsMovedOnceItRuns() {
    draining("w1", 8, DEADLINE).worker("w2", 8);
    vms.add(
        VmSnapshot.builder("late", 1, "process", Map.of("cpu", 1L, "memory", 512L))
            .status(VmStatus.SCHEDULED)
            .restartPolicy(RestartPolicy.ALWAYS)
            .build());
    tasks.add(new PlacedTask("late", 1, 0, "w1", TaskState.SCHEDULED));
    TermPlan p = plan(T);
    assertEquals(List.of(), moves(p));
    assertEquals(
        "draining until " + DEADLINE + ": 1 VM left; 1 starting, moved once running",
        p.drainProgress().get("w1"));
    assertEquals(
        List.of("late.0@w1"),
        evicted(plan(DEADLINE.plusSeconds(1))),
        "at the deadline it goes all the same");
  }
}
