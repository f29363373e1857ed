package dev.rota.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.lifecycle.SetRule.Plan;
import dev.rota.core.lifecycle.SetRule.Policy;
import dev.rota.core.lifecycle.SetRule.Replica;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A set's passes as a table (scaling, and rolling out a new version within its bounds), then as a
 * simulation over random timings: the bounds hold at every instant and every rollout ends.
 */
class SetRuleTest {
  private static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");
  private static final Duration HEALTHY = Duration.ofSeconds(10);

  /**
   * Replicas written {@code ordinal:version:state}, state {@code a} available, {@code r} ready for
   * less than the healthy time, {@code p} pending, {@code f} failed, {@code g} being removed.
   */
  private static List<Replica> replicas(String written) {
    if (written.isBlank()) {
      return List.of();
    }
    return Arrays.stream(written.trim().split("\\s+"))
        .map(
            r -> {
              String[] p = r.split(":");
              Instant since =
                  switch (p[2]) {
                    case "a" -> NOW.minus(HEALTHY);
                    case "r" -> NOW.minusSeconds(1);
                    default -> null;
                  };
              return new Replica(
                  Integer.parseInt(p[0]),
                  Integer.parseInt(p[1]),
                  p[2].equals("g"),
                  since,
                  p[2].equals("f"));
            })
        .toList();
  }

  private static String ordinals(List<Integer> ordinals) {
    return ordinals.stream().map(String::valueOf).collect(Collectors.joining(" "));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      a new set makes every ordinal                    | 3 | 1 | 0 | 1 | ''                            | 0 1 2 | ''
      scaling up fills the lowest free ordinals        | 4 | 1 | 0 | 1 | 0:1:a 2:1:p                   | 1 3   | ''
      scaling down removes the highest first           | 2 | 1 | 0 | 1 | 0:1:p 1:1:a 2:1:a 3:1:a       | ''    | 3 2
      a replica being removed holds its place          | 3 | 1 | 0 | 1 | 0:1:a 1:1:a 2:1:g             | ''    | ''
      a deleted set removes all, old first             | 0 | 1 | 1 | 2 | 0:2:a 1:1:a 2:2:p             | ''    | 1 2 0
      rollout, no surge: one old goes                  | 3 | 1 | 0 | 2 | 0:1:a 1:1:a 2:1:a             | ''    | 2
      rollout: its place is taken once it is gone      | 3 | 1 | 0 | 2 | 0:1:a 1:1:a                   | 2     | ''
      rollout: a new one ready too briefly holds it    | 3 | 1 | 0 | 2 | 0:1:a 1:1:a 2:2:r             | ''    | ''
      rollout: a new one healthy lets the next go      | 3 | 1 | 0 | 2 | 0:1:a 1:1:a 2:2:a             | ''    | 1
      rollout: an old one ready briefly is available   | 3 | 1 | 0 | 2 | 0:1:r 1:1:r 2:1:r             | ''    | 2
      rollout: an old one not available goes at once   | 4 | 1 | 0 | 2 | 0:1:a 1:1:p 2:1:a 3:1:p       | ''    | 3 1
      rollout, maxUnavailable 2: two go at once        | 3 | 2 | 0 | 2 | 0:1:a 1:1:a 2:1:a             | ''    | 2 1
      rollout with surge: the new one comes first      | 3 | 0 | 1 | 2 | 0:1:a 1:1:a 2:1:a             | 3     | ''
      rollout with surge: old goes once new is healthy | 3 | 0 | 1 | 2 | 0:1:a 1:1:a 2:1:a 3:2:a       | ''    | 2
      rollout with surge: no more while one is going   | 3 | 0 | 1 | 2 | 0:1:a 1:1:a 2:1:g 3:2:a       | ''    | ''
      rollout with surge and unavailable: both at once | 3 | 1 | 1 | 2 | 0:1:a 1:1:a 2:1:a             | 3     | 2
      rollout scaled down: over the limit goes at once | 2 | 1 | 1 | 2 | 0:1:a 1:1:a 2:1:a 3:1:a 4:2:p | ''    | 3 2 1
      """)
  void eachPassMakesAndRemovesWithinTheBounds(
      String why,
      int wanted,
      int unavailable,
      int surge,
      int version,
      String given,
      String make,
      String remove) {
    Plan plan =
        SetRule.plan(
            wanted, version, replicas(given), new Policy(unavailable, surge, HEALTHY), NOW);
    assertEquals(make, ordinals(plan.make()), why + ": made");
    assertEquals(remove, ordinals(plan.remove()), why + ": removed");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      one canary: an old one goes to make room          | 3 | 1 | 0 | 1 | 0:1:a 1:1:a 2:1:a       | ''  | 2
      one canary: made once the room is free            | 3 | 1 | 0 | 1 | 0:1:a 1:1:a             | 2   | ''
      one canary made: the rollout waits                | 3 | 1 | 0 | 1 | 0:1:a 1:1:a 2:2:a       | ''  | ''
      one canary, surge: made first                     | 3 | 0 | 1 | 1 | 0:1:a 1:1:a 2:1:a       | 3   | ''
      one canary, surge: one old goes once it is healthy| 3 | 0 | 1 | 1 | 0:1:a 1:1:a 2:1:a 3:2:a | ''  | 2
      paused before anything new: nothing moves         | 3 | 1 | 1 | 0 | 0:1:a 1:1:p 2:1:a       | ''  | ''
      paused, a replica lacking: made, of the new one   | 3 | 1 | 1 | 0 | 0:1:a 1:1:a             | 2   | ''
      """)
  void aWaitingRolloutGoesToItsCanariesOrWhereItIsAndNoFurther(
      String why,
      int wanted,
      int unavailable,
      int surge,
      int newAtMost,
      String given,
      String make,
      String remove) {
    Plan plan =
        SetRule.plan(
            wanted, 2, replicas(given), new Policy(unavailable, surge, HEALTHY, newAtMost), NOW);
    assertEquals(make, ordinals(plan.make()), why + ": made");
    assertEquals(remove, ordinals(plan.remove()), why + ": removed");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      a new one pending: the next is made with surge    | 1 | 1 | 0:1:a 1:1:a 2:2:p       | 3   | ''  | ''
      a new one failed: no more are made                | 1 | 1 | 0:1:a 1:1:a 2:2:f       | ''  | ''  | 2
      a new one failed: no old one goes to make room    | 1 | 1 | 0:1:a 1:1:a 2:1:a 3:2:f | ''  | ''  | 3
      a new one failed: an old one gone is made again   | 1 | 0 | 0:1:a 2:2:f             | 1   | ''  | 2
      a new one failed: what is over the limit goes     | 1 | 0 | 0:1:a 1:1:a 2:1:a 3:2:f | ''  | 2   | 3
      an old one failed is only not available           | 1 | 0 | 0:1:f 1:1:a 2:1:a       | ''  | 0   | ''
      """)
  void aRolloutOneOfWhoseNewReplicasFailedGoesNoFurther(
      String why,
      int unavailable,
      int surge,
      String given,
      String make,
      String remove,
      String failed) {
    Plan plan = SetRule.plan(3, 2, replicas(given), new Policy(unavailable, surge, HEALTHY), NOW);
    assertEquals(make, ordinals(plan.make()), why + ": made");
    assertEquals(remove, ordinals(plan.remove()), why + ": removed");
    assertEquals(failed, ordinals(plan.failed()), why + ": failed");
  }

  @Test
  void aRolloutIsOverOnceNoReplicaOfAnEarlierVersionIsLeft() {
    List<Replica> done = replicas("0:2:a 1:2:r 2:2:p");
    Plan plan = SetRule.plan(3, 2, done, new Policy(1, 0, HEALTHY), NOW);
    assertEquals(false, plan.rolling());
    assertTrue(plan.settled(done), "replicas still starting are the scheduler's, not the set's");
    List<Replica> rolling = replicas("0:2:a 1:2:a 2:1:a");
    assertEquals(true, SetRule.plan(3, 2, rolling, new Policy(0, 0, HEALTHY), NOW).rolling());
    assertEquals(
        false,
        SetRule.plan(3, 2, rolling, new Policy(0, 0, HEALTHY), NOW).settled(rolling),
        "held by maxUnavailable 0 without surge: it waits, looking again");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      nothing new available, within the deadline      | 0 | 0 | 599 | 0 | 0   | false
      nothing new available, past the deadline        | 0 | 0 | 601 | 0 | 0   | true
      one more available: progress, the clock again   | 1 | 0 | 601 | 2 | 601 | false
      as many as before is no progress                | 2 | 0 | 601 | 2 | 0   | true
      fewer than before is no progress                | 2 | 0 | 300 | 1 | 0   | false
      """)
  void aRolloutStallsWhenNoMoreNewReplicasAreAvailableForItsDeadline(
      String why,
      int before,
      int sinceSecond,
      int atSecond,
      int availableNow,
      int sinceAfter,
      boolean stalled) {
    Duration deadline = Duration.ofMinutes(10);
    SetRule.Progress after =
        new SetRule.Progress(before, NOW.plusSeconds(sinceSecond))
            .after(availableNow, NOW.plusSeconds(atSecond));
    assertEquals(NOW.plusSeconds(sinceAfter), after.since(), why);
    assertEquals(Math.max(before, availableNow), after.available(), why);
    assertEquals(stalled, after.stalled(deadline, NOW.plusSeconds(atSecond)), why);
  }

  /**
   * A set rolled out pass after pass, its replicas taking random times to start, to become ready
   * and to be removed: at every instant no more than {@code wanted + maxSurge} replicas exist and
   * no fewer than {@code wanted - maxUnavailable} are available, and every rollout ends with the
   * wanted number, all new.
   */
  @Test
  void overRandomTimingsTheBoundsHoldAtEveryInstantAndEveryRolloutEnds() {
    rollOut(new Random(7), false);
  }

  /**
   * The same rollouts with what happens around them: a replica's worker drained or lost now and
   * then (it stops being available, and is ready again elsewhere later), and a host that dies in
   * the middle of a pass (only some of the pass's decisions carried out, the next pass deciding
   * from the rows alone). No more than {@code wanted + maxSurge} replicas ever, no pass removes an
   * available replica below {@code wanted - maxUnavailable} available, and every rollout ends.
   */
  @Test
  void aRolloutThroughDrainsAndHostsKilledMidPassKeepsItsBoundsAndEnds() {
    rollOut(new Random(11), true);
  }

  /** 500 random rollouts; with {@code disrupted}, through drains and hosts killed mid-pass. */
  private static void rollOut(Random random, boolean disrupted) {
    for (int run = 0; run < 500; run++) {
      int wanted = 1 + random.nextInt(8);
      int unavailable = random.nextInt(3);
      int surge = random.nextInt(3);
      if (unavailable == 0 && surge == 0) {
        surge = 1; // Kubernetes refuses both 0: nothing could ever move
      }
      Policy policy = new Policy(unavailable, surge, HEALTHY);
      Instant now = NOW;
      // Each replica: its version, when it becomes ready (null: never yet), when it is gone.
      Map<Integer, long[]> set = new HashMap<>();
      for (int i = 0; i < wanted; i++) {
        set.put(i, new long[] {1, now.minus(HEALTHY).getEpochSecond(), Long.MAX_VALUE});
      }
      String where = "run " + run + " wanted " + wanted + " " + policy;
      int passes = 0;
      while (true) {
        final Instant at = now;
        set.values().removeIf(r -> r[2] <= at.getEpochSecond());
        if (disrupted && random.nextInt(4) == 0 && !set.isEmpty()) {
          // A drain or a lost worker: one replica starts again elsewhere, ready some time later.
          long[] moved = set.values().stream().skip(random.nextInt(set.size())).findFirst().get();
          if (moved[2] == Long.MAX_VALUE) {
            moved[1] = at.getEpochSecond() + 1 + random.nextInt(20);
          }
        }
        List<Replica> seen = new ArrayList<>();
        set.forEach(
            (ordinal, r) ->
                seen.add(
                    new Replica(
                        ordinal,
                        (int) r[0],
                        r[2] != Long.MAX_VALUE,
                        r[1] <= at.getEpochSecond() ? Instant.ofEpochSecond(r[1]) : null)));
        long available = seen.stream().filter(r -> r.availableAt(at, 2, HEALTHY)).count();
        assertTrue(set.size() <= wanted + surge, where + ": " + set.size() + " exist");
        if (!disrupted) {
          assertTrue(available >= wanted - unavailable, where + ": " + available + " available");
        }
        Plan plan = SetRule.plan(wanted, 2, seen, policy, at);
        long removedAvailable =
            seen.stream()
                .filter(r -> plan.remove().contains(r.ordinal()))
                .filter(r -> r.availableAt(at, 2, HEALTHY))
                .count();
        assertTrue(
            removedAvailable == 0 || available - removedAvailable >= wanted - unavailable,
            where
                + ": a pass took "
                + available
                + " available to "
                + (available - removedAvailable));
        if (plan.settled(seen)) {
          assertEquals(wanted, set.size(), where);
          assertTrue(set.values().stream().allMatch(r -> r[0] == 2), where);
          break;
        }
        // A host killed mid-pass carries out only the first of its decisions.
        int decisions = plan.remove().size() + plan.make().size();
        int budget =
            disrupted && random.nextInt(5) == 0 ? random.nextInt(decisions + 1) : decisions;
        int carried = 0;
        for (int ordinal : plan.remove()) {
          if (carried++ < budget) {
            set.get(ordinal)[2] = at.getEpochSecond() + random.nextInt(20);
          }
        }
        for (int ordinal : plan.make()) {
          if (carried++ < budget) {
            set.put(
                ordinal,
                new long[] {2, at.getEpochSecond() + 1 + random.nextInt(30), Long.MAX_VALUE});
          }
        }
        now = now.plusSeconds(1 + random.nextInt(5));
        assertTrue(++passes < 10_000, where + ": the rollout never ends");
      }
    }
  }
}
