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
        List<dev.rota.core.model.LabelConstraint> constraints) {

  /** What {@code migration} says of a VM that moves while it runs. */
  public static final String LIVE = "live";

  /** What {@code migration} says of a VM restarted where it moves to. */
  public static final String RESTART = "restart";

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds,
      Integer ttlSecondsAfterFinished,
      GuestSpec guest,
      dev.rota.agentapi.Disconnect disconnect,
      List<dev.rota.agentapi.PortSpec> ports,
      dev.rota.agentapi.NetworkSpec network,
      dev.rota.agentapi.Checks checks,
      dev.rota.agentapi.SecretRefs secrets,
      Integer maxRunSeconds,
      String onExpiry,
      boolean persistentDisk,
      Integer diskSizeGi,
      List<VolumeMount> volumes) {
    this(
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
        null);
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds,
      Integer ttlSecondsAfterFinished,
      GuestSpec guest,
      dev.rota.agentapi.Disconnect disconnect,
      List<dev.rota.agentapi.PortSpec> ports,
      dev.rota.agentapi.NetworkSpec network,
      dev.rota.agentapi.Checks checks,
      dev.rota.agentapi.SecretRefs secrets,
      Integer maxRunSeconds,
      String onExpiry,
      boolean persistentDisk,
      Integer diskSizeGi,
      List<VolumeMount> volumes,
      String migration) {
    this(
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
        null);
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds,
      Integer ttlSecondsAfterFinished,
      GuestSpec guest,
      dev.rota.agentapi.Disconnect disconnect,
      List<dev.rota.agentapi.PortSpec> ports,
      dev.rota.agentapi.NetworkSpec network,
      dev.rota.agentapi.Checks checks,
      dev.rota.agentapi.SecretRefs secrets,
      Integer maxRunSeconds,
      String onExpiry,
      boolean persistentDisk,
      Integer diskSizeGi,
      List<VolumeMount> volumes,
      String migration,
      Integer priority) {
    this(
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
        List.of());
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
        constraints);
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
    priority = priority == null ? dev.rota.core.model.Priority.DEFAULT : priority;
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds,
      Integer ttlSecondsAfterFinished,
      GuestSpec guest,
      dev.rota.agentapi.Disconnect disconnect,
      List<dev.rota.agentapi.PortSpec> ports,
      dev.rota.agentapi.NetworkSpec network,
      dev.rota.agentapi.Checks checks,
      dev.rota.agentapi.SecretRefs secrets) {
    this(
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
        null,
        null,
        false,
        null,
        List.of());
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds,
      Integer ttlSecondsAfterFinished,
      GuestSpec guest,
      dev.rota.agentapi.Disconnect disconnect) {
    this(
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
        List.of(),
        null,
        null,
        null);
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds,
      Integer ttlSecondsAfterFinished,
      GuestSpec guest) {
    this(
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
        null);
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy,
      Integer maxRestarts,
      Integer restartWindowSeconds) {
    this(
        runtime,
        image,
        command,
        env,
        resources,
        labels,
        restartPolicy,
        maxRestarts,
        restartWindowSeconds,
        null,
        null);
  }

  public VmTemplate(
      String runtime,
      String image,
      List<String> command,
      Map<String, String> env,
      Map<String, Long> resources,
      Map<String, String> labels,
      String restartPolicy) {
    this(runtime, image, command, env, resources, labels, restartPolicy, null, null, null, null);
  }
}
