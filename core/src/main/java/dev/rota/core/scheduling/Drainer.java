package dev.rota.core.scheduling;

import dev.rota.core.model.SchedulerProfile;
import dev.rota.core.model.TaskState;
import dev.rota.core.model.VmStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What draining takes off a worker this term (Nomad's node drain, Kubernetes' {@code kubectl
 * drain}). A draining worker takes no new VMs (it is paused). Until its deadline, each running VM
 * with a restart policy is moved: its next generation is placed elsewhere, as placement would place
 * it, while the old task keeps running until the new one has started, so a drain takes nothing away
 * unless a new copy fails; a set's replicas move no more at once than its {@code maxUnavailable}
 * allows ({@link SetAllowances}). A running VM that moves live ({@link VmSnapshot#liveMigration})
 * is moved as well, whatever its restart policy: its new copy takes its memory and disk from the
 * old one, which it replaces without a restart. VMs without a restart policy stay until the
 * deadline: nothing would start them again; so do other VMs with a persistent disk, which is copied
 * when they are stopped there. Once the deadline has passed, every VM still on the worker is
 * evicted: its workflow stops it, or starts it again elsewhere when it has a restart policy.
 */
public final class Drainer {
  private Drainer() {}

  /**
   * A VM whose task of {@code generation} was still on {@code worker} when the drain's deadline
   * passed.
   */
  public record Eviction(String vm, long seq, int generation, String worker, Instant deadline) {}

  /**
   * @param moves replicas to move, each placed as placement would place it
   * @param evictions VMs whose workflows are told the deadline passed
   * @param progress what each draining worker still holds and why, by worker
   */
  public record Outcome(List<Move> moves, List<Eviction> evictions, Map<String, String> progress) {
    public static final Outcome NONE = new Outcome(List.of(), List.of(), Map.of());
  }

  /**
   * A VM whose current task is on a draining worker.
   *
   * @param state its task's state as last observed
   * @param settling whether a move of it failed and the new copy's record is not yet gone: it moves
   *     again once it is
   */
  public record Resident(VmSnapshot vm, String worker, TaskState state, boolean settling) {
    public Resident(VmSnapshot vm, String worker, TaskState state) {
      this(vm, worker, state, false);
    }
  }

  /**
   * @param deadlines the draining workers, each with its drain's deadline
   * @param workers every worker, with this term's health: where moved VMs may go
   * @param holdings what every worker holds, this term's placements included
   * @param residents the VMs whose current tasks are on draining workers, oldest first
   * @param leaving by worker, how many old copies of VMs being moved away are still there
   * @param allowances how many more replicas of each set may move ({@link SetAllowances}); a set
   *     missing here (being deleted) has no bound
   */
  public static Outcome plan(
      Instant now,
      Map<String, Instant> deadlines,
      List<Candidate> workers,
      List<Holding> holdings,
      List<Resident> residents,
      Map<String, Integer> leaving,
      Map<String, Integer> allowances,
      SchedulerProfile profile) {
    if (deadlines.isEmpty()) {
      return Outcome.NONE;
    }
    Map<String, Integer> allowance = new HashMap<>(allowances);
    Map<String, Tally> tallies = new TreeMap<>();
    deadlines.forEach((w, deadline) -> tallies.put(w, new Tally(deadline, now)));
    List<Eviction> evictions = new ArrayList<>();
    List<PendingVm> movers = new ArrayList<>();
    Map<String, Resident> moverOf = new HashMap<>();
    for (Resident r : residents) {
      Tally tally = tallies.get(r.worker());
      if (tally == null) {
        continue;
      }
      tally.left++;
      VmSnapshot vm = r.vm();
      if (tally.passed) {
        evictions.add(
            new Eviction(vm.name(), vm.seq(), vm.restartCount(), r.worker(), tally.deadline));
      } else if (vm.persistentDisk()
          && !(vm.liveMigration()
              && r.state() == TaskState.RUNNING
              && vm.status() == VmStatus.RUNNING)) {
        tally.keepingDisks++;
      } else if (!vm.restarts() && !vm.persistentDisk()) {
        tally.staying++;
      } else if (r.settling()) {
        tally.moving++; // its move failed: tried again once the new copy's record is gone
      } else if (r.state() != TaskState.RUNNING || vm.status() != VmStatus.RUNNING || vm.moving()) {
        tally.starting++; // moved once it runs: until then there is nothing to keep running
        // meanwhile
      } else if (vm.set() != null && allowance.getOrDefault(vm.set(), Integer.MAX_VALUE) <= 0) {
        tally.held++;
        tally.heldBy = vm.set();
      } else {
        if (vm.set() != null) {
          allowance.computeIfPresent(vm.set(), (s, n) -> n - 1);
        }
        movers.add(vm.liveMigration() ? vm.asPending().takingItsDisk() : vm.asPending());
        moverOf.put(vm.name(), r);
      }
    }
    leaving.forEach(
        (w, n) -> {
          Tally tally = tallies.get(w);
          if (tally != null) {
            tally.left += n;
            tally.moving += n;
          }
        });

    List<Move> moves = new ArrayList<>();
    if (!movers.isEmpty()) {
      // What stays on a draining worker is leaving too: a set's spread counts what will remain.
      List<Holding> remaining =
          holdings.stream()
              .map(
                  h -> deadlines.containsKey(h.worker()) ? new Holding(h.worker(), h.request()) : h)
              .toList();
      PlacementPlan plan = Placer.place(workers, remaining, movers, profile);
      for (PlacementPlan.Placement p : plan.placed()) {
        Resident r = moverOf.get(p.vm());
        Tally tally = tallies.get(r.worker());
        tally.moving++;
        moves.add(
            new Move(
                p.vm(),
                r.vm().seq(),
                r.vm().restartCount(),
                r.worker(),
                p.worker(),
                "worker " + r.worker() + " is draining, deadline " + tally.deadline));
      }
      for (PlacementPlan.Unplaced u : plan.pending()) {
        Tally tally = tallies.get(moverOf.get(u.vm()).worker());
        tally.waiting++;
        if (tally.waitReason == null) {
          tally.waitReason = u.reason();
        }
      }
    }
    Map<String, String> progress = new TreeMap<>();
    tallies.forEach((w, t) -> progress.put(w, t.describe()));
    return new Outcome(moves, evictions, progress);
  }

  /** What one draining worker still holds, counted for its progress line. */
  private static final class Tally {
    final Instant deadline;
    final boolean passed;
    int left;
    int moving;
    int staying;
    int keepingDisks;
    int starting;
    int held;
    String heldBy;
    int waiting;
    String waitReason;

    Tally(Instant deadline, Instant now) {
      this.deadline = deadline;
      this.passed = !now.isBefore(deadline);
    }

    String describe() {
      if (left == 0) {
        return "drained: no VMs left";
      }
      if (passed) {
        return "deadline "
            + deadline
            + " passed: "
            + vms(left)
            + " left, being stopped or started elsewhere";
      }
      List<String> parts = new ArrayList<>();
      if (moving > 0) {
        parts.add(moving + " moving");
      }
      if (starting > 0) {
        parts.add(starting + " starting, moved once running");
      }
      if (held > 0) {
        parts.add(held + " waiting for set " + heldBy + "'s moves under way (maxUnavailable)");
      }
      if (waiting > 0) {
        parts.add(waiting + " waiting for room elsewhere (" + waitReason + ")");
      }
      if (staying > 0) {
        parts.add(staying + " without a restart policy, stopped at the deadline");
      }
      if (keepingDisks > 0) {
        parts.add(
            keepingDisks
                + " with a persistent disk, which stays: stopped at the deadline, and waiting"
                + " for this worker");
      }
      return "draining until " + deadline + ": " + vms(left) + " left; " + String.join(", ", parts);
    }

    private static String vms(int n) {
      return n + (n == 1 ? " VM" : " VMs");
    }
  }
}
