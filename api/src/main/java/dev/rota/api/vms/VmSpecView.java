package dev.rota.api.vms;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Durations;
import dev.rota.store.VmTemplate;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Map;

/**
 * A VM's spec (or a set's template) as the API shows it, in the form a request takes it back:
 * durations as durations ({@code 1h}), whatever the store keeps them as.
 */
// Every field is written, null or empty included: a VM's view shows its spec whole.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VmSpecView(
    String runtime,
    @Nullable String image,
    List<String> command,
    Map<String, Object> env,
    Map<String, Long> resources,
    Map<String, String> labels,
    String restartPolicy,
    @Nullable Integer maxRestarts,
    @Nullable String restartWindow,
    @Nullable String ttlAfterFinished,
    @Nullable GuestView guest,
    @Nullable DisconnectView disconnect,
    List<PortView> ports,
    @Nullable dev.rota.agentapi.NetworkSpec network,
    @Nullable String isolation,
    @Nullable CheckRequest readiness,
    @Nullable CheckRequest liveness,
    @Nullable String maxRunDuration,
    @Nullable String onExpiry,
    @Nullable DiskView disk,
    List<dev.rota.store.VolumeMount> volumes,
    String migration,
    int priority,
    List<ConstraintRequest> constraints,
    String workerPool,
    List<TolerationRequest> tolerations,
    List<AffinityRequest> affinities,
    String namespace) {

  /** A {@code qemu} VM's root disk as its spec gives it; null for the default, ephemeral one. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Serdeable
  public record DiskView(boolean persistent, @Nullable Integer sizeGi) {}

  /** A named port as the spec gives it (the worker's port is in the VM's {@code endpoints}). */
  @Serdeable
  public record PortView(String name, int port) {}

  /** A VM's {@code disconnect} as shown. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Serdeable
  public record DisconnectView(boolean replace, @Nullable String stopAfter) {}

  public static VmSpecView of(VmTemplate spec) {
    return new VmSpecView(
        spec.runtime(),
        spec.image(),
        spec.command(),
        env(spec),
        spec.resources(),
        spec.labels(),
        spec.restartPolicy(),
        spec.maxRestarts(),
        Durations.of(spec.restartWindowSeconds()),
        Durations.of(spec.ttlSecondsAfterFinished()),
        GuestView.of(spec.guest(), spec.secrets()),
        spec.disconnect() == null
            ? null
            : new DisconnectView(
                spec.disconnect().replace(), Durations.of(spec.disconnect().stopAfterSeconds())),
        spec.ports().stream().map(p -> new PortView(p.name(), p.port())).toList(),
        spec.network(),
        isolation(spec),
        spec.checks() == null ? null : CheckRequest.of(spec.checks().readiness()),
        spec.checks() == null ? null : CheckRequest.of(spec.checks().liveness()),
        Durations.of(spec.maxRunSeconds()),
        spec.onExpiry(),
        spec.persistentDisk() || spec.diskSizeGi() != null
            ? new DiskView(spec.persistentDisk(), spec.diskSizeGi())
            : null,
        spec.volumes(),
        spec.liveMigration() ? VmTemplate.LIVE : VmTemplate.RESTART,
        spec.priority(),
        spec.constraints().stream()
            .filter(c -> !c.label().equals(dev.rota.agentapi.WorkerPool.LABEL))
            .map(ConstraintRequest::of)
            .toList(),
        workerPool(spec),
        spec.tolerations().stream().map(TolerationRequest::of).toList(),
        spec.affinities().stream().map(AffinityRequest::of).toList(),
        spec.namespace());
  }

  /**
   * The worker pool it goes to: the one its pool constraint names, or the default pool (also for a
   * VM submitted before worker pools, which has no such constraint).
   */
  private static String workerPool(VmTemplate spec) {
    for (dev.rota.core.model.LabelConstraint c : spec.constraints()) {
      if (c.label().equals(dev.rota.agentapi.WorkerPool.LABEL) && c.operator().equals("=")) {
        return c.values().get(0);
      }
    }
    return dev.rota.agentapi.WorkerPool.DEFAULT;
  }

  /** Its environment, a variable that is a secret's as the secret's name. */
  private static Map<String, Object> env(VmTemplate spec) {
    Map<String, Object> env = new java.util.TreeMap<>(spec.env());
    if (spec.secrets() != null) {
      spec.secrets().env().forEach((name, secret) -> env.put(name, new SecretRef(secret)));
    }
    return env;
  }

  /** A qemu VM's: required when it asks for workers that confine guests. */
  private static String isolation(VmTemplate spec) {
    if (!VmService.QEMU.equals(spec.runtime())) {
      return null;
    }
    return dev.rota.agentapi.GuestIsolation.CONFINED.equals(
            spec.labels().get(dev.rota.agentapi.GuestIsolation.LABEL))
        ? dev.rota.agentapi.GuestIsolation.REQUIRED
        : dev.rota.agentapi.GuestIsolation.OPTIONAL;
  }
}
