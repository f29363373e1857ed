package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import java.time.Instant;
import java.util.Map;

/**
 * What the scheduler reads of a VM every term: the columns of {@link VmRow} a placement or a
 * reconciliation uses, and whether it runs without having passed its readiness check yet.
 *
 * @param evicted whether the term evicted its current task (its {@code evicted_generation} is its
 *     generation): what that task holds is on its way out
 */
public record VmSchedulingRow(
    String name,
    long seq,
    String runtime,
    @Nullable String image,
    Map<String, Long> resources,
    Map<String, String> labels,
    String restartPolicy,
    String status,
    int restartCount,
    @Nullable String avoidWorker,
    @Nullable Instant avoidUntil,
    @Nullable String vmSet,
    @Nullable String failedOn,
    @Nullable String movingFrom,
    @Nullable String oldCopyOn,
    boolean keepsThroughDisconnect,
    boolean awaitingReadiness,
    boolean persistentDisk,
    @Nullable String diskOn,
    boolean liveMigration,
    @Nullable String taskName,
    int priority,
    boolean evicted,
    java.util.List<dev.rota.core.model.LabelConstraint> constraints,
    java.util.List<dev.rota.agentapi.Toleration> tolerations,
    java.util.List<dev.rota.core.model.Affinity> affinities,
    String namespace,
    @Nullable Integer diskSizeGi) {}
