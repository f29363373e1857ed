package dev.rota.api.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.workflows.cluster.ApplyResult;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.Map;

/**
 * {@code GET /v1/cluster}: the scheduler as the read model last saw it.
 *
 * @param schedulerWorkflowId the id of the cluster workflow, to look it up in the Temporal UI
 * @param term the number of the last finished term, 0 before the first
 * @param lastTermAt when the last term began to run (not when it was asked for, which an outage can
 *     hold up), null before the first
 * @param lastTermEndedAt when the last term's decisions were committed, null before the first
 * @param workers how many workers are in each health
 * @param vms how many VMs are in each status
 * @param lastTermSource {@code workflow} when the scheduler answered its query in time, else {@code
 *     database}, the read model its activities keep
 * @param lastTermDecisions what the last term that changed something decided and carried out, when
 *     the workflow answered; the terms after it, when {@code term} is higher, changed nothing
 * @param scheduler {@code ok}, or {@code degraded} when no term has come for longer than a working
 *     scheduler waits (its workflow lost, stuck, or the database out of reach)
 * @param schedulerMessage since when, and what the hosts did about it
 * @param schedulingPaused placements and moves paused for the cluster ({@code PATCH /v1/cluster})
 * @param rejectSubmissions new VMs and VM sets refused for now
 * @param pauseReason what the operator said of the pause, or null
 * @param pausedAt since when the cluster is paused, or null
 * @param version the release of the host that answered
 * @param commit the commit that host was built from, or null when built outside git
 */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record ClusterView(
    String schedulerWorkflowId,
    long term,
    @Nullable Instant lastTermAt,
    @Nullable Instant lastTermEndedAt,
    Map<String, Long> workers,
    Map<String, Long> vms,
    String lastTermSource,
    @Nullable TermDecisionsView lastTermDecisions,
    @Nullable ApplyResult lastTermApplied,
    String scheduler,
    String schedulerMessage,
    boolean schedulingPaused,
    boolean rejectSubmissions,
    @Nullable String pauseReason,
    @Nullable Instant pausedAt,
    String version,
    @Nullable String commit) {}
