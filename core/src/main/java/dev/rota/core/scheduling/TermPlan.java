package dev.rota.core.scheduling;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything one term decided.
 *
 * @param healthChanges workers whose health, message or cool-down changed
 * @param moves VMs to move, off draining workers and to rebalance, their new copy placed now and
 *     the old one removed once it runs
 * @param evictions VMs still on a draining worker whose deadline passed
 * @param drainProgress what each draining worker still holds, by worker
 * @param removals workers offline longer than {@code removeOfflineAfter}, to be removed
 * @param failovers VMs whose worker went offline with their task, placed elsewhere in this term
 * @param preemptions running VMs evicted to make room for waiting VMs of higher priority
 * @param nextDeadline the earliest time a worker's health could change, or a drain's deadline pass,
 *     with no new input
 */
public record TermPlan(
    List<HealthChange> healthChanges,
    PlacementPlan placement,
    Reconciliation reconciliation,
    List<Move> moves,
    List<Drainer.Eviction> evictions,
    Map<String, String> drainProgress,
    List<WorkerRemoval> removals,
    List<Failover> failovers,
    List<Preemptor.Preemption> preemptions,
    Instant nextDeadline) {

  /**
   * VM {@code vm}'s task of {@code generation} was lost with worker {@code from}, which went
   * offline; its next generation is placed on {@code to} at once (Nomad replaces a down node's
   * allocations so), as its restart policy would start it again anyway: not counted as a failure of
   * the VM's, not delayed.
   *
   * @param why what made {@code to} the choice beyond room and the profile, or null
   */
  public record Failover(String vm, long seq, int generation, String from, String to, String why) {}

  /** A worker to remove, if it was not heard from since {@code lastSeen}. */
  public record WorkerRemoval(String worker, Instant lastSeen) {}

  public record HealthChange(String worker, HealthVerdict verdict) {}
}
