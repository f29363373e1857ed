package dev.rota.workflows.vmset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.lifecycle.SetRule;
import dev.rota.core.lifecycle.SetRule.Plan;
import dev.rota.core.lifecycle.SetRule.Policy;
import dev.rota.core.lifecycle.SetRule.Replica;
import dev.rota.testing.TemporalTestEnvironments;
import dev.rota.workflows.Histories;
import dev.rota.workflows.Settled;
import dev.rota.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A set's rollout through its workflow, in skipped time: each pass is the real rule ({@link
 * SetRule}) over replicas kept in memory, as the real pass reads them from the store, which boot
 * some seconds after they are made and take some seconds to stop. Between passes a drain moves
 * replicas off a worker, the template changes again, or a host dies in the middle of a pass. At
 * every instant the set keeps its bounds, and the rollout ends with every replica of the newest
 * version.
 */
class VmSetRolloutWorkflowTest {
  private static final Duration BOOT = Duration.ofSeconds(3);
  private static final Duration STOP = Duration.ofSeconds(2);
  private static final Duration HEALTHY = Duration.ofSeconds(10);
  private static final String SET = "web";

  /**
   * A replica: the version it was made of, when it is (or was) ready, when it is gone once asked to
   * go, and, while a drain moves it, when its new copy is ready.
   */
  record Copy(int version, long readyAt, long goneAt, long movedAt, boolean onDrained) {
    static final long NEVER = Long.MAX_VALUE;

    boolean going() {
      return goneAt != NEVER;
    }

    boolean moving() {
      return movedAt != NEVER;
    }

    /** Whether it serves at {@code now}: ready, and not being stopped (a mover's old copy does). */
    boolean readyAt(long now) {
      return !going() && readyAt <= now;
    }
  }

  /** One set's replicas, each pass deciding with {@link SetRule} as the real pass does. */
  static final class RollingSet implements VmSetActivities {
    final int wanted;
    final Policy policy;
    final Map<Integer, Copy> copies = new TreeMap<>();
    final List<String> broken = new ArrayList<>();
    volatile int version = 1;

    /**
     * Decisions the next pass carries out at most before its host dies, before it answers in any
     * case; -1: it does not die.
     */
    int dieAfter = -1;

    int diedPasses;

    private final TestWorkflowEnvironment[] env;

    RollingSet(int wanted, Policy policy, TestWorkflowEnvironment[] env) {
      this.wanted = wanted;
      this.policy = policy;
      this.env = env;
      for (int ordinal = 0; ordinal < wanted; ordinal++) {
        copies.put(ordinal, new Copy(1, 0, Copy.NEVER, Copy.NEVER, ordinal % 2 == 0));
      }
    }

    @Override
    public synchronized SetProgress reconcile(SetRef set) {
      long now = env[0].currentTimeMillis();
      look(now);
      List<Replica> seen = new ArrayList<>();
      copies.forEach(
          (ordinal, c) ->
              seen.add(
                  new Replica(
                      ordinal,
                      c.version(),
                      c.going(),
                      c.readyAt(now) ? Instant.ofEpochMilli(c.readyAt()) : null)));
      Plan plan = SetRule.plan(wanted, version, seen, policy, Instant.ofEpochMilli(now));
      int carried = 0;
      for (int ordinal : plan.remove()) {
        if (dieAfter >= 0 && carried++ >= dieAfter) {
          return died();
        }
        Copy c = copies.get(ordinal);
        copies.put(
            ordinal,
            new Copy(c.version(), c.readyAt(), now + STOP.toMillis(), Copy.NEVER, c.onDrained()));
      }
      for (int ordinal : plan.make()) {
        if (dieAfter >= 0 && carried++ >= dieAfter) {
          return died();
        }
        copies.put(
            ordinal, new Copy(version, now + BOOT.toMillis(), Copy.NEVER, Copy.NEVER, false));
      }
      if (dieAfter >= 0) {
        return died(); // after all it decided, before its answer
      }
      look(now);
      boolean settled = plan.settled(seen);
      return new SetProgress(
          false,
          settled,
          wanted,
          copies.size(),
          plan.make().size(),
          plan.remove().size(),
          null,
          plan.rolling()
              ? "rolling out version " + version + ": " + plan.updatedAvailable() + " available"
              : null);
    }

    /** The host dies in the middle of the pass: what it did stays, its answer never comes. */
    private SetProgress died() {
      dieAfter = -1;
      diedPasses++;
      throw new IllegalStateException("the host running the pass died");
    }

    /**
     * The set at {@code now}: replicas whose stop ended are gone, movers whose new copy is ready
     * are moved; then the bounds, at this instant, are checked.
     */
    synchronized void look(long now) {
      copies.values().removeIf(c -> c.goneAt() <= now);
      copies.replaceAll(
          (ordinal, c) ->
              c.moving() && c.movedAt() <= now
                  ? new Copy(c.version(), c.movedAt(), c.goneAt(), Copy.NEVER, false)
                  : c);
      long ready = copies.values().stream().filter(c -> c.readyAt(now)).count();
      long moving = copies.values().stream().filter(Copy::moving).count();
      if (copies.size() > wanted + policy.maxSurge()) {
        broken.add("at " + now + " ms " + copies.size() + " replicas exist: " + copies);
      }
      if (ready < wanted - policy.maxUnavailable()) {
        broken.add("at " + now + " ms only " + ready + " replicas ready: " + copies);
      }
      if (moving > policy.maxUnavailable()) {
        broken.add("at " + now + " ms " + moving + " replicas moving at once: " + copies);
      }
    }

    /**
     * A term of the drain: moves one replica off the drained worker when the set may have one more
     * away ({@code maxUnavailable} less those not ready and those moving), surge first: its old
     * copy serves until its new one is ready.
     */
    synchronized void drainTerm(long now) {
      look(now);
      long ready = copies.values().stream().filter(c -> !c.going() && c.readyAt(now)).count();
      long moving = copies.values().stream().filter(Copy::moving).count();
      long members = copies.values().stream().filter(c -> !c.going()).count();
      long missing = Math.max(0, wanted - ready);
      if (policy.maxUnavailable() - missing - moving <= 0 || members < wanted) {
        return;
      }
      copies.entrySet().stream()
          .filter(
              e ->
                  e.getValue().onDrained()
                      && !e.getValue().moving()
                      && !e.getValue().going()
                      && e.getValue().readyAt(now))
          .findFirst()
          .ifPresent(
              e -> {
                Copy c = e.getValue();
                e.setValue(
                    new Copy(c.version(), c.readyAt(), c.goneAt(), now + BOOT.toMillis(), true));
              });
    }

    synchronized boolean onDrainedWorker() {
      return copies.values().stream().anyMatch(Copy::onDrained);
    }

    synchronized boolean allOf(int v) {
      return copies.size() == wanted && copies.values().stream().allMatch(c -> c.version() == v);
    }

    synchronized long of(int v) {
      return copies.values().stream().filter(c -> c.version() == v && !c.going()).count();
    }
  }

  /**
   * A host that keeps no workflow in memory between its tasks: each task replays the set's history
   * from the start, as a host that has just taken over from a dead one does. (Killing a host that
   * keeps them cannot be tested here: Temporal's test server sends a workflow's next task to the
   * host that ran its last, and never gives it to another when that host is gone.)
   */
  private static final TestEnvironmentOptions HOSTS_WITHOUT_MEMORY =
      TestEnvironmentOptions.newBuilder()
          .setWorkerFactoryOptions(
              WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build())
          .build();

  private final TestWorkflowEnvironment[] env = new TestWorkflowEnvironment[1];

  @AfterEach
  void close() {
    env[0].close();
  }

  private RollingSet start(int wanted, Policy policy, TestEnvironmentOptions hosts) {
    RollingSet set = new RollingSet(wanted, policy, env);
    env[0] = TemporalTestEnvironments.started(hosts, set);
    VmSetWorkflow workflow =
        env[0]
            .getWorkflowClient()
            .newWorkflowStub(
                VmSetWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(VmSetWorkflow.workflowId(SET))
                    .setTaskQueue(TaskQueues.CONTROL)
                    .build());
    WorkflowClient.start(workflow::run, SET);
    env[0].sleep(Duration.ofSeconds(1));
    Settled.settle(env[0], VmSetWorkflow.workflowId(SET));
    return set;
  }

  /** The set's template changes to {@code version}, and its workflow is told, as a PUT does. */
  private void change(RollingSet set, int version) {
    set.version = version;
    env[0]
        .getWorkflowClient()
        .newWorkflowStub(VmSetWorkflow.class, VmSetWorkflow.workflowId(SET))
        .changed();
  }

  /** Seconds of skipped time, one at a time, the set looked at each, until {@code done}. */
  private void watch(
      RollingSet set, int seconds, Runnable eachSecond, java.util.function.BooleanSupplier done) {
    for (int s = 0; s < seconds && !done.getAsBoolean(); s++) {
      env[0].sleep(Duration.ofSeconds(1));
      eachSecond.run();
      set.look(env[0].currentTimeMillis());
    }
  }

  private String runId() {
    return env[0]
        .getWorkflowClient()
        .newUntypedWorkflowStub(VmSetWorkflow.workflowId(SET))
        .describe()
        .getExecution()
        .getRunId();
  }

  @Test
  void aRolloutDuringADrainKeepsItsBoundsAndEndsWithTheWorkerEmpty() throws Exception {
    RollingSet set =
        start(6, new Policy(1, 1, HEALTHY), TestEnvironmentOptions.getDefaultInstance());
    change(set, 2);
    watch(
        set,
        600,
        () -> set.drainTerm(env[0].currentTimeMillis()),
        () -> set.allOf(2) && !set.onDrainedWorker());
    assertEquals(List.of(), set.broken, "the bounds broke");
    assertTrue(set.allOf(2), "every replica of version 2: " + set.copies);
    assertTrue(!set.onDrainedWorker(), "the drained worker is empty: " + set.copies);
    Settled.settle(env[0], VmSetWorkflow.workflowId(SET));
    Histories.replayAndMaybeRecord(
        env[0].getWorkflowClient(),
        VmSetWorkflow.workflowId(SET),
        VmSetWorkflowImpl.class,
        "vmset-rollout-drain");
  }

  /**
   * The template changed again while version 2 rolls out: the newest rolls out, the replicas of
   * version 2 being old to it as those of version 1 are, within the same bounds.
   */
  @Test
  void aSecondChangeDuringARolloutRollsOutTheNewestOverBoth() throws Exception {
    RollingSet set =
        start(6, new Policy(1, 1, HEALTHY), TestEnvironmentOptions.getDefaultInstance());
    change(set, 2);
    watch(set, 600, () -> {}, () -> set.of(2) >= 2);
    assertTrue(set.of(1) > 0, "version 1 still there: " + set.copies);
    change(set, 3);
    watch(set, 600, () -> {}, () -> set.allOf(3));
    assertEquals(List.of(), set.broken, "the bounds broke");
    assertTrue(set.allOf(3), "every replica of version 3: " + set.copies);
    Settled.settle(env[0], VmSetWorkflow.workflowId(SET));
    Histories.replayAndMaybeRecord(
        env[0].getWorkflowClient(),
        VmSetWorkflow.workflowId(SET),
        VmSetWorkflowImpl.class,
        "vmset-rollout-newest-wins");
  }

  @Test
  void aHostKilledMidPassLeavesTheRolloutToGoOnWhereItWas() throws Exception {
    RollingSet set = start(6, new Policy(1, 0, HEALTHY), HOSTS_WITHOUT_MEMORY);
    String run = runId();
    change(set, 2);
    watch(set, 600, () -> {}, () -> set.of(2) >= 3);
    Settled.settle(env[0], VmSetWorkflow.workflowId(SET));
    long newBefore = set.of(2);
    assertTrue(newBefore >= 3 && newBefore < 6, "mid-rollout: " + set.copies);

    // The host dies in the next pass, after one decision: what it did stays, its answer never
    // comes; the pass is run again, and each workflow task after it on a host that remembers
    // nothing of the set.
    synchronized (set) {
      set.dieAfter = 1;
    }

    watch(
        set,
        600,
        () -> assertTrue(set.of(2) >= newBefore, "a new replica went: " + set.copies),
        () -> set.allOf(2));
    assertEquals(List.of(), set.broken, "the bounds broke");
    assertTrue(set.allOf(2), "every replica of version 2: " + set.copies);
    assertEquals(1, set.diedPasses, "the host died in a pass");
    assertEquals(run, runId(), "the same run went on");
    Settled.settle(env[0], VmSetWorkflow.workflowId(SET));
    Histories.replayAndMaybeRecord(
        env[0].getWorkflowClient(),
        VmSetWorkflow.workflowId(SET),
        VmSetWorkflowImpl.class,
        "vmset-rollout-host-killed");
  }
}
