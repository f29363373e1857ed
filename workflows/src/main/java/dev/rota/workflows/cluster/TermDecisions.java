package dev.rota.workflows.cluster;

import java.util.List;

/**
 * What a committed term decided, in counts, with the first few decisions spelled out for the
 * Temporal UI. The full record is in the database (VM events, worker health, the action outbox).
 *
 * @param placed VMs placed on a worker
 * @param moved VMs moved off draining workers or to rebalance: their new copies placed, the old
 *     ones kept until those start
 * @param pending VMs still waiting, each with its reason in the store
 * @param lostRaces decisions refused by a version check; re-planned next term
 * @param nextDeadlineMillis the nearest time a worker's health could change, 0 if none
 * @param actions actions queued for the apply activity
 * @param examples a few decisions, e.g. "placed build-42 on mini-1"
 */
public record TermDecisions(
    int placed,
    int moved,
    int pending,
    int healthChanges,
    int removals,
    int failures,
    int lostRaces,
    long nextDeadlineMillis,
    long actions,
    List<String> examples) {}
