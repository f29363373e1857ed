package dev.rota.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.agentapi.GuestSpec;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.model.DataType;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Map;

/**
 * What a VM runs and asks for, without its name: a submitted VM's spec (the user's columns of its
 * row, written at submission alone), and a VM set's template, from which each of its replicas is
 * made alike.
 *
 * @param maxRestarts restarts after failures allowed within {@code restartWindowSeconds}, after
 *     which the VM stays failed; null for no limit
 * @param restartWindowSeconds the window {@code maxRestarts} counts in; null when there is no limit
 * @param ttlSecondsAfterFinished how long after it finished (stopped, or failed for good) the VM is
 *     deleted; null: kept until deleted by hand
 * @param guest how a {@code qemu} VM's guest is booted and configured; null for none
 * @param disconnect what becomes of it when its worker is cut off; null for the default (replaced,
 *     the old copy stopped at the fence)
 * @param ports the ports it serves, by name (no worker ports: its agent chooses those); empty for
 *     none
 * @param network where a {@code qemu} guest may connect to; null for a runtime without a network of
 *     its own
 * @param checks its readiness and liveness checks; null for none
 * @param secrets which of its values are secrets (their names, never their values): {@code env}
 *     holds none of those variables, nor {@code guest} that user data or startup script; null for
 *     none
 * @param maxRunSeconds how long the VM may run before its lease runs out; null for no limit
 * @param onExpiry what becomes of it when its lease runs out ({@code stop}, {@code delete}), its
 *     own or the cluster's default; null for a stop
 * @param persistentDisk whether a {@code qemu} VM's root disk outlives its tasks: kept on its
 *     worker, which the VM then stays on, until the VM is deleted
 * @param diskSizeGi the size of a {@code qemu} VM's root disk in GiB; null for its image's
 * @param volumes the data volumes a {@code qemu} VM mounts, in order; empty for none
 * @param migration how it moves between workers while it runs: {@code live} (a {@code qemu} VM with
 *     a persistent disk: its memory and disk carried over, no restart), or null or {@code restart}
 *     (stopped and started again there)
 * @param priority how far ahead of other VMs it is placed, 0 to 100 ({@link
 *     dev.rota.core.model.Priority}); null, as in a template stored before it had one, is the
 *     default
 * @param constraints rules on its worker's labels beyond {@code labels} ({@link
 *     dev.rota.core.model.LabelConstraint}); empty for none
 * @param tolerations the workers' taints it may go past ({@link dev.rota.agentapi.Toleration});
 *     empty for none
 * @param affinities the workers it prefers, or avoids, by their labels ({@link
 *     dev.rota.core.model.Affinity}); empty for none
 * @param namespace the namespace it lives in, whose quota it counts against ({@link
 *     dev.rota.core.model.Quota}); a set's replicas live in the set's
 */
// Every field is written, null or empty included: a VM's view shows its spec whole.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
@Embeddable
public record VmTemplate(
    @MappedProperty("runtime") String runtime,
    @MappedProperty("image") @Nullable String image,
    @MappedProperty("command")
        @TypeDef(type = DataType.STRING, converter = Converters.StringList.class)
        List<String> command,
    @MappedProperty("env") @TypeDef(type = DataType.STRING, converter = Converters.Strings.class)
        Map<String, String> env,
    @MappedProperty("resources")
        @TypeDef(type = DataType.STRING, converter = Converters.Quantities.class)
        Map<String, Long> resources,
    @MappedProperty("labels") @TypeDef(type = DataType.STRING, converter = Converters.Strings.class)
        Map<String, String> labels,
    @MappedProperty("restart_policy") String restartPolicy,
    @MappedProperty("max_restarts") @Nullable Integer maxRestarts,
    @MappedProperty("restart_window_seconds") @Nullable Integer restartWindowSeconds,
    @MappedProperty("ttl_seconds_after_finished") @Nullable Integer ttlSecondsAfterFinished,
    @MappedProperty("guest")
        @Nullable
        @TypeDef(type = DataType.STRING, converter = Converters.Guest.class)
        GuestSpec guest,
    @MappedProperty("disconnect")
        @Nullable
        @TypeDef(type = DataType.STRING, converter = Converters.DisconnectPolicy.class)
        dev.rota.agentapi.Disconnect disconnect,
    @MappedProperty("ports")
        @Nullable
        @TypeDef(type = DataType.STRING, converter = Converters.Ports.class)
        List<dev.rota.agentapi.PortSpec> ports,
    @MappedProperty("network")
        @Nullable
        @TypeDef(type = DataType.STRING, converter = Converters.Network.class)
        dev.rota.agentapi.NetworkSpec network,
    @MappedProperty("checks")
        @Nullable
        @TypeDef(type = DataType.STRING, converter = Converters.HealthChecks.class)
        dev.rota.agentapi.Checks checks,
    @MappedProperty("secret_refs")
        @Nullable
        @TypeDef(type = DataType.STRING, converter = Converters.Secrets.class)
        dev.rota.agentapi.SecretRefs secrets,
    @MappedProperty("max_run_seconds") @Nullable Integer maxRunSeconds,
    @MappedProperty("on_expiry") @Nullable String onExpiry,
    @MappedProperty("disk_persistent") boolean persistentDisk,
    @MappedProperty("disk_size_gi") @Nullable Integer diskSizeGi,
    @MappedProperty("volumes") @TypeDef(type = DataType.STRING, converter = Converters.Mounts.class)
        List<VolumeMount> volumes,
    @MappedProperty("migration") @Nullable String migration,
    @MappedProperty("priority") Integer priority,
    @MappedProperty("constraints")
        @TypeDef(type = DataType.STRING, converter = Converters.Constraints.class)
        List<dev.rota.core.model.LabelConstraint> constraints,
    @MappedProperty("tolerations")
        @TypeDef(type = DataType.STRING, converter = Converters.Tolerations.class)
        List<dev.rota.agentapi.Toleration> tolerations,
    @MappedProperty("affinities")
        @TypeDef(type = DataType.STRING, converter = Converters.Affinities.class)
        List<dev.rota.core.model.Affinity> affinities,
    @MappedProperty("namespace") String namespace) {

  /** What {@code migration} says of a VM that moves while it runs. */
  public static final String LIVE = "live";

  /** What {@code migration} says of a VM restarted where it moves to. */
  public static final String RESTART = "restart";

  /** What it counts against its namespace's quota. */
  public dev.rota.core.model.NamespaceUsage usage() {
    return dev.rota.core.model.NamespaceUsage.of(resources, diskSizeGi);
  }

  /** Whether it moves while it runs, its memory and disk carried over: no restart. */
  public boolean liveMigration() {
    return LIVE.equals(migration);
  }

  /**
   * This spec, or, when it gives no {@code maxRunDuration}, with a lease of {@code
   * defaultMaxRunSeconds} (the cluster's default; null: none) ending as its {@code onExpiry} says,
   * or in a stop.
   */
  public VmTemplate withDefaultLease(Integer defaultMaxRunSeconds) {
    if (maxRunSeconds != null || defaultMaxRunSeconds == null) {
      return this;
    }
    return withLease(defaultMaxRunSeconds, onExpiry == null ? "stop" : onExpiry);
  }

  /**
   * This spec with a lease of {@code newMaxRunSeconds} ending as {@code newOnExpiry} says; both
   * null for none (a pool's replica waits without one: its lease is its claimer's).
   */
  public VmTemplate withLease(Integer newMaxRunSeconds, String newOnExpiry) {
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
        disconnect,
        ports,
        network,
        checks,
        secrets,
        newMaxRunSeconds,
        newOnExpiry,
        persistentDisk,
        diskSizeGi,
        volumes,
        migration,
        priority,
        constraints,
        tolerations,
        affinities,
        namespace);
  }

  /**
   * A template read back from its JSON has no empty lists or maps: they were left out when written.
   */
  public VmTemplate {
    command = command == null ? List.of() : command;
    env = env == null ? Map.of() : env;
    resources = resources == null ? Map.of() : resources;
    labels = labels == null ? Map.of() : labels;
    ports = ports == null ? List.of() : ports;
    volumes = volumes == null ? List.of() : volumes;
    constraints = constraints == null ? List.of() : constraints;
    tolerations = tolerations == null ? List.of() : tolerations;
    affinities = affinities == null ? List.of() : affinities;
    priority = priority == null ? dev.rota.core.model.Priority.DEFAULT : priority;
    namespace = namespace == null ? NamespaceRow.DEFAULT : namespace;
  }

  /** A spec for {@code runtime}: every other field left out (null, empty or false) until set. */
  public static Builder builder(String runtime) {
    return new Builder(runtime);
  }

  /** A {@link VmTemplate} made field by field, each left out at its default. */
  public static final class Builder {
    private final String runtime;
    private String image;
    private List<String> command;
    private Map<String, String> env;
    private Map<String, Long> resources;
    private Map<String, String> labels;
    private String restartPolicy;
    private Integer maxRestarts;
    private Integer restartWindowSeconds;
    private Integer ttlSecondsAfterFinished;
    private GuestSpec guest;
    private dev.rota.agentapi.Disconnect disconnect;
    private List<dev.rota.agentapi.PortSpec> ports;
    private dev.rota.agentapi.NetworkSpec network;
    private dev.rota.agentapi.Checks checks;
    private dev.rota.agentapi.SecretRefs secrets;
    private Integer maxRunSeconds;
    private String onExpiry;
    private boolean persistentDisk;
    private Integer diskSizeGi;
    private List<VolumeMount> volumes;
    private String migration;
    private Integer priority;
    private List<dev.rota.core.model.LabelConstraint> constraints;
    private List<dev.rota.agentapi.Toleration> tolerations;
    private List<dev.rota.core.model.Affinity> affinities;
    private String namespace;

    private Builder(String runtime) {
      this.runtime = runtime;
    }

    public Builder image(String image) {
      this.image = image;
      return this;
    }

    public Builder command(List<String> command) {
      this.command = command;
      return this;
    }

    public Builder env(Map<String, String> env) {
      this.env = env;
      return this;
    }

    public Builder resources(Map<String, Long> resources) {
      this.resources = resources;
      return this;
    }

    public Builder labels(Map<String, String> labels) {
      this.labels = labels;
      return this;
    }

    public Builder restartPolicy(String restartPolicy) {
      this.restartPolicy = restartPolicy;
      return this;
    }

    public Builder maxRestarts(Integer maxRestarts) {
      this.maxRestarts = maxRestarts;
      return this;
    }

    public Builder restartWindowSeconds(Integer restartWindowSeconds) {
      this.restartWindowSeconds = restartWindowSeconds;
      return this;
    }

    public Builder ttlSecondsAfterFinished(Integer ttlSecondsAfterFinished) {
      this.ttlSecondsAfterFinished = ttlSecondsAfterFinished;
      return this;
    }

    public Builder guest(GuestSpec guest) {
      this.guest = guest;
      return this;
    }

    public Builder disconnect(dev.rota.agentapi.Disconnect disconnect) {
      this.disconnect = disconnect;
      return this;
    }

    public Builder ports(List<dev.rota.agentapi.PortSpec> ports) {
      this.ports = ports;
      return this;
    }

    public Builder network(dev.rota.agentapi.NetworkSpec network) {
      this.network = network;
      return this;
    }

    public Builder checks(dev.rota.agentapi.Checks checks) {
      this.checks = checks;
      return this;
    }

    public Builder secrets(dev.rota.agentapi.SecretRefs secrets) {
      this.secrets = secrets;
      return this;
    }

    public Builder maxRunSeconds(Integer maxRunSeconds) {
      this.maxRunSeconds = maxRunSeconds;
      return this;
    }

    public Builder onExpiry(String onExpiry) {
      this.onExpiry = onExpiry;
      return this;
    }

    public Builder persistentDisk(boolean persistentDisk) {
      this.persistentDisk = persistentDisk;
      return this;
    }

    public Builder diskSizeGi(Integer diskSizeGi) {
      this.diskSizeGi = diskSizeGi;
      return this;
    }

    public Builder volumes(List<VolumeMount> volumes) {
      this.volumes = volumes;
      return this;
    }

    public Builder migration(String migration) {
      this.migration = migration;
      return this;
    }

    public Builder priority(Integer priority) {
      this.priority = priority;
      return this;
    }

    public Builder constraints(List<dev.rota.core.model.LabelConstraint> constraints) {
      this.constraints = constraints;
      return this;
    }

    public Builder tolerations(List<dev.rota.agentapi.Toleration> tolerations) {
      this.tolerations = tolerations;
      return this;
    }

    public Builder affinities(List<dev.rota.core.model.Affinity> affinities) {
      this.affinities = affinities;
      return this;
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public VmTemplate build() {
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
          disconnect,
          ports,
          network,
          checks,
          secrets,
          maxRunSeconds,
          onExpiry,
          persistentDisk,
          diskSizeGi,
          volumes,
          migration,
          priority,
          constraints,
          tolerations,
          affinities,
          namespace);
    }
  }
}
