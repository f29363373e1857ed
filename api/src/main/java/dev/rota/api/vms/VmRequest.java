package dev.rota.api.vms;

import dev.rota.api.Durations;
import dev.rota.api.Limits;
import dev.rota.api.Names;
import dev.rota.api.ShownAs;
import dev.rota.core.model.Priority;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/vms}. Server-owned fields (status, worker, times, …) are not part of it: a body
 * that carries them (a VM as shown, sent back) has them ignored; any other field is refused.
 */
@Serdeable
@ShownAs(VmView.class)
public record VmRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @Nullable
        @Pattern(
            regexp = "^[a-z0-9][a-z0-9-]{0,62}$",
            message = "must be a runtime name such as process")
        String runtime,
    @Nullable @Size(max = 2048) String image,
    @Nullable @Size(max = 256) List<@NotNull @Size(max = 8192) String> command,
    @Nullable @Size(max = 128)
        Map<
                @NotNull
                @Pattern(regexp = Limits.ENV_NAME, message = "must be an environment variable name")
                String,
                @NotNull Object>
            env,
    @Nullable @Size(max = 32)
        Map<
                @NotNull @Pattern(regexp = Limits.RESOURCE_NAME, message = Limits.RESOURCE_MESSAGE)
                String,
                @NotNull Object>
            resources,
    @Nullable @Size(max = 64)
        Map<
                @NotNull @Pattern(regexp = Limits.LABEL_KEY, message = Limits.LABEL_MESSAGE) String,
                @NotNull @Size(max = 253) String>
            labels,
    @Nullable
        @Pattern(
            regexp = "^(Never|OnFailure|Always)$",
            message = "must be one of \"Never\", \"OnFailure\", \"Always\"")
        String restartPolicy,
    @Nullable @Min(0) @Max(VmRequest.MAX_RESTARTS) Integer maxRestarts,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE)
        String restartWindow,
    @Nullable @Pattern(regexp = Durations.PATTERN_OR_ZERO, message = Durations.MESSAGE + ", or 0s")
        String ttlAfterFinished,
    @Nullable @Valid GuestRequest guest,
    @Nullable @Valid DisconnectRequest disconnect,
    @Nullable @Size(max = 16) List<@NotNull @Valid PortRequest> ports,
    @Nullable @Valid NetworkRequest network,
    @Nullable
        @Pattern(
            regexp = "^(required|optional)$",
            message = "must be one of \"required\", \"optional\"")
        String isolation,
    @Nullable @Valid CheckRequest readiness,
    @Nullable @Valid CheckRequest liveness,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE)
        String maxRunDuration,
    @Nullable
        @Pattern(
            regexp = "^(stop|delete|suspend)$",
            message = "must be one of \"stop\", \"delete\", \"suspend\"")
        String onExpiry,
    @Nullable @Valid DiskRequest disk,
    @Nullable @Size(max = 8) List<@NotNull @Valid VolumeMountRequest> volumes,
    @Nullable
        @Pattern(regexp = "^(live|restart)$", message = "must be one of \"live\", \"restart\"")
        String migration,
    @Nullable @Pattern(regexp = VmRequest.POOL_NAME, message = "must be the name of a pool")
        String fromPool,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a template")
        String fromTemplate,
    @Nullable @Size(max = 32) Map<String, Object> parameters,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of an instance size")
        String size,
    @Nullable @Min(Priority.MIN) @Max(Priority.MAX) Integer priority,
    @Nullable @Size(max = 16) List<@NotNull @Valid ConstraintRequest> constraints,
    @Nullable
        @Pattern(
            regexp = dev.rota.agentapi.WorkerPool.NAME,
            message = "must be a worker pool's name")
        String workerPool,
    @Nullable @Size(max = 16) List<@NotNull @Valid TolerationRequest> tolerations,
    @Nullable @Size(max = 16) List<@NotNull @Valid AffinityRequest> affinities,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a namespace")
        String namespace) {
  /**
   * This request with {@code resources}: what it gives, over its instance size's (a 30-field record
   * is copied here, once).
   */
  public VmRequest withResources(Map<String, Object> given) {
    return new VmRequest(
        name,
        runtime,
        image,
        command,
        env,
        given,
        labels,
        restartPolicy,
        maxRestarts,
        restartWindow,
        ttlAfterFinished,
        guest,
        disconnect,
        ports,
        network,
        isolation,
        readiness,
        liveness,
        maxRunDuration,
        onExpiry,
        disk,
        volumes,
        migration,
        fromPool,
        fromTemplate,
        parameters,
        null,
        priority,
        constraints,
        workerPool,
        tolerations,
        affinities,
        namespace);
  }

  /** A pool's name: a DNS label short enough for its replicas' ever-growing ordinals. */
  public static final String POOL_NAME = "^[a-z0-9]([a-z0-9-]{0,48}[a-z0-9])?$";

  public static final int MAX_RESTARTS = 10_000;

  /** The longest value an environment variable is given. */
  public static final int MAX_ENV_VALUE = 32_768;

  /** The window {@code maxRestarts} counts in when none is given: an hour. */
  public static final int DEFAULT_RESTART_WINDOW_SECONDS = 3600;
}
