package dev.rota.store;

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
 * A registered worker machine. Heartbeats write {@code lastSeen} alone, without a new version; the
 * term writes {@code drainProgress} alone too. {@code notices} are what its agent said at
 * registration that a person should know (none is an empty list); {@code agentVersion} the build
 * its agent said it is when it registered.
 */
@MappedEntity("workers")
public record WorkerRow(
    @Id String name,
    String endpoint,
    @TypeDef(type = DataType.STRING, converter = Converters.Quantities.class)
        Map<String, Long> resources,
    @TypeDef(type = DataType.STRING, converter = Converters.Strings.class)
        Map<String, String> labels,
    @TypeDef(type = DataType.STRING, converter = Converters.StringList.class) List<String> runtimes,
    @Nullable String machineId,
    boolean schedulingPaused,
    String health,
    @Nullable String healthMessage,
    @Nullable Instant lastSeen,
    Instant createdAt,
    @Nullable Instant lastProbeAt,
    boolean lastProbeOk,
    int probeFailures,
    @Nullable String lastProbeError,
    @Nullable Instant flakyUntil,
    @Nullable String agentSecret,
    @Nullable String certificateSha256,
    @Nullable Instant drainDeadline,
    @Nullable Instant drainStartedAt,
    @Nullable String drainProgress,
    @TypeDef(type = DataType.STRING, converter = Converters.StringList.class) List<String> notices,
    @Nullable String agentVersion,
    @Version long version) {

  /** A newly registered worker: not ready until its agent answers a probe. */
  public static WorkerRow registered(
      String name,
      String endpoint,
      Map<String, Long> resources,
      Map<String, String> labels,
      List<String> runtimes,
      @Nullable String machineId,
      String health,
      String healthMessage,
      Instant now) {
    return new WorkerRow(
        name,
        endpoint,
        resources,
        labels,
        runtimes,
        machineId,
        false,
        health,
        healthMessage,
        now,
        now,
        null,
        false,
        0,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        List.of(),
        null,
        0);
  }

  public WorkerRow withPaused(boolean paused) {
    return new WorkerRow(
        name,
        endpoint,
        resources,
        labels,
        runtimes,
        machineId,
        paused,
        health,
        healthMessage,
        lastSeen,
        createdAt,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil,
        agentSecret,
        certificateSha256,
        drainDeadline,
        drainStartedAt,
        drainProgress,
        notices,
        agentVersion,
        version);
  }

  /**
   * Drained until {@code deadline} (paused meanwhile); a drain under way keeps when it started. A
   * null deadline ends the drain, leaving the pause as it is.
   */
  public WorkerRow withDrain(@Nullable Instant deadline, Instant now) {
    Instant started = deadline == null ? null : drainStartedAt != null ? drainStartedAt : now;
    return new WorkerRow(
        name,
        endpoint,
        resources,
        labels,
        runtimes,
        machineId,
        schedulingPaused || deadline != null,
        health,
        healthMessage,
        lastSeen,
        createdAt,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil,
        agentSecret,
        certificateSha256,
        deadline,
        started,
        deadline == null ? null : drainProgress,
        notices,
        agentVersion,
        version);
  }

  /**
   * What the controller presents to the agent, the certificate it pins for the agent's HTTPS, and
   * the agent's build ({@code 0.1.0+<commit>}, null when it did not say).
   */
  public WorkerRow withAgent(
      @Nullable String secret, @Nullable String certificate, @Nullable String build) {
    return new WorkerRow(
        name,
        endpoint,
        resources,
        labels,
        runtimes,
        machineId,
        schedulingPaused,
        health,
        healthMessage,
        lastSeen,
        createdAt,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil,
        secret,
        certificate,
        drainDeadline,
        drainStartedAt,
        drainProgress,
        notices,
        build,
        version);
  }

  /**
   * What its agent says a person should know of it (limits it cannot enforce, guests emulated in
   * software).
   */
  public WorkerRow withNotices(List<String> said) {
    return new WorkerRow(
        name,
        endpoint,
        resources,
        labels,
        runtimes,
        machineId,
        schedulingPaused,
        health,
        healthMessage,
        lastSeen,
        createdAt,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil,
        agentSecret,
        certificateSha256,
        drainDeadline,
        drainStartedAt,
        drainProgress,
        List.copyOf(said),
        agentVersion,
        version);
  }

  /** How to call this worker's agent. */
  public dev.rota.store.AgentAddress agent() {
    return new dev.rota.store.AgentAddress(endpoint, agentSecret, certificateSha256);
  }

  /** What a term's probes need of it. */
  public WorkerProbeRow probeRow() {
    return new WorkerProbeRow(
        name,
        endpoint,
        agentSecret,
        certificateSha256,
        health,
        lastSeen,
        createdAt,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil);
  }

  /** The registration's fields replaced; pause, health and history kept. */
  public WorkerRow reregistered(
      String newEndpoint,
      Map<String, Long> newResources,
      Map<String, String> newLabels,
      List<String> newRuntimes,
      @Nullable String newMachineId,
      Instant seen) {
    return new WorkerRow(
        name,
        newEndpoint,
        newResources,
        newLabels,
        newRuntimes,
        newMachineId != null ? newMachineId : machineId,
        schedulingPaused,
        health,
        healthMessage,
        seen,
        createdAt,
        lastProbeAt,
        lastProbeOk,
        probeFailures,
        lastProbeError,
        flakyUntil,
        agentSecret,
        certificateSha256,
        drainDeadline,
        drainStartedAt,
        drainProgress,
        notices,
        agentVersion,
        version);
  }
}
