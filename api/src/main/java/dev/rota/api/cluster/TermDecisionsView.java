package dev.rota.api.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.workflows.cluster.TermDecisions;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;

/**
 * What the last term decided, as {@code GET /v1/cluster} shows it.
 *
 * @param placed VMs placed on a worker
 * @param moved VMs moved off draining workers or to rebalance
 * @param pending VMs still waiting, each with its reason
 * @param healthChanges workers whose health changed
 * @param removals copies removed
 * @param failures VMs marked failed
 * @param lostRaces decisions refused by a version check, planned again next term
 * @param nextDeadline the nearest time a worker's health could change, null if none
 * @param actions actions queued for the agents
 * @param examples a few decisions, e.g. "placed build-42 on mini-1"
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record TermDecisionsView(
    int placed,
    int moved,
    int pending,
    int healthChanges,
    int removals,
    int failures,
    int lostRaces,
    @Nullable Instant nextDeadline,
    long actions,
    List<String> examples) {

  static TermDecisionsView of(TermDecisions d) {
    return new TermDecisionsView(
        d.placed(),
        d.moved(),
        d.pending(),
        d.healthChanges(),
        d.removals(),
        d.failures(),
        d.lostRaces(),
        d.nextDeadlineMillis() > 0 ? Instant.ofEpochMilli(d.nextDeadlineMillis()) : null,
        d.actions(),
        d.examples());
  }
}
