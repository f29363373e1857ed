package dev.rota.store;

import dev.rota.agentapi.GuestSpec;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.annotation.Version;
import io.micronaut.data.model.DataType;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A submitted VM: its spec as the user gave it (the API's), the read model of its lifecycle
 * (status, worker, message, exit code, times, generation: its workflow's alone), and what the
 * scheduler notes for placing it (the worker to avoid, why it waits). {@code seq} orders VMs by
 * submission for "oldest first" and for list cursors, and tells a VM from an earlier one of its
 * name.
 */
@MappedEntity("vms")
public record VmRow(
    @Id String name,
    long seq,
    String runtime,
    @Nullable String image,
    @TypeDef(type = DataType.STRING, converter = Converters.StringList.class) List<String> command,
    @TypeDef(type = DataType.STRING, converter = Converters.Strings.class) Map<String, String> env,
    @TypeDef(type = DataType.STRING, converter = Converters.Quantities.class)
        Map<String, Long> resources,
    @TypeDef(type = DataType.STRING, converter = Converters.Strings.class)
        Map<String, String> labels,
    String restartPolicy,
    String status,
    @Nullable String statusMessage,
    @Nullable String worker,
    int restartCount,
    @Nullable Integer exitCode,
    Instant createdAt,
    @Nullable Instant scheduledAt,
    @Nullable Instant startedAt,
    @Nullable Instant finishedAt,
    @Nullable String avoidWorker,
    @Nullable Instant avoidUntil,
    @Nullable String pendingReason,
    long taskEventId,
    @Nullable String vmSet,
    @Nullable Integer setOrdinal,
    @Nullable String failedOn,
    @Nullable String movingFrom,
    @Nullable String oldCopyOn,
    @Nullable Integer maxRestarts,
    @Nullable Integer restartWindowSeconds,
    @Nullable Integer ttlSecondsAfterFinished,
    @Nullable @TypeDef(type = DataType.STRING, converter = Converters.Guest.class) GuestSpec guest,
    @Nullable @TypeDef(type = DataType.STRING, converter = Converters.DisconnectPolicy.class)
        dev.rota.agentapi.Disconnect disconnect,
    @Version long version) {

  /** A VM as submitted: pending, generation 0, no worker. */
  public static VmRow submitted(
      String name, long seq, VmTemplate spec, String message, Instant now) {
    return replica(name, seq, spec, null, null, message, now);
  }

  /**
   * Replica {@code ordinal} of set {@code vmSet} as its set made it; a VM of no set when {@code
   * vmSet} is null.
   */
  public static VmRow replica(
      String name,
      long seq,
      VmTemplate spec,
      @Nullable String vmSet,
      @Nullable Integer ordinal,
      String message,
      Instant now) {
    return new VmRow(
        name,
        seq,
        spec.runtime(),
        spec.image(),
        spec.command(),
        spec.env(),
        spec.resources(),
        spec.labels(),
        spec.restartPolicy(),
        "pending",
        message,
        null,
        0,
        null,
        now,
        null,
        null,
        null,
        null,
        null,
        null,
        0,
        vmSet,
        ordinal,
        null,
        null,
        null,
        spec.maxRestarts(),
        spec.restartWindowSeconds(),
        spec.ttlSecondsAfterFinished(),
        spec.guest(),
        spec.disconnect(),
        0);
  }

  /** What the scheduler reads of it. */
  public VmSchedulingRow scheduling() {
    return new VmSchedulingRow(
        name,
        seq,
        runtime,
        image,
        resources,
        labels,
        restartPolicy,
        status,
        restartCount,
        avoidWorker,
        avoidUntil,
        vmSet,
        failedOn,
        movingFrom,
        oldCopyOn,
        dev.rota.agentapi.Disconnect.keeps(disconnect));
  }

  /** What it runs and asks for. */
  public VmTemplate spec() {
    return new VmTemplate(
        runtime,
        image,
        command,
        env,
        resources,
        labels,
        restartPolicy,
        maxRestarts,
        restartWindowSeconds,
        ttlSecondsAfterFinished,
        guest,
        disconnect);
  }

  public VmRow withSeq(long newSeq) {
    return new VmRow(
        name,
        newSeq,
        runtime,
        image,
        command,
        env,
        resources,
        labels,
        restartPolicy,
        status,
        statusMessage,
        worker,
        restartCount,
        exitCode,
        createdAt,
        scheduledAt,
        startedAt,
        finishedAt,
        avoidWorker,
        avoidUntil,
        pendingReason,
        taskEventId,
        vmSet,
        setOrdinal,
        failedOn,
        movingFrom,
        oldCopyOn,
        maxRestarts,
        restartWindowSeconds,
        ttlSecondsAfterFinished,
        guest,
        disconnect,
        version);
  }
}
