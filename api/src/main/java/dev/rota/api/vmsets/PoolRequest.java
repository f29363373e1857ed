package dev.rota.api.vmsets;

import dev.rota.api.Names;
import dev.rota.api.ShownAs;
import dev.rota.api.vms.VmRequest;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.Map;

/**
 * {@code POST /v1/pools}: a warm pool keeping {@code minReady} replicas of its template booted and
 * ready to be claimed ({@code POST /v1/vms {"name", "fromPool"}}), and at most {@code max} VMs out
 * at once, its replicas and the VMs claimed from it together. The template is a set's. {@code
 * standby}: how the ready replicas wait, {@code running} (the default) or {@code suspended} (booted
 * once, then saved to their worker's disk, and resumed by the claim).
 */
@Serdeable
@ShownAs(PoolView.class)
public record PoolRequest(
    @NotNull @Pattern(regexp = VmRequest.POOL_NAME, message = PoolRequest.NAME_MESSAGE) String name,
    @NotNull @Min(0) @Max(PoolRequest.MAX_VMS) Integer minReady,
    @NotNull @Min(1) @Max(PoolRequest.MAX_VMS) Integer max,
    @NotNull Map<String, Object> template,
    @Nullable Object spread,
    @Nullable @Min(0) @Max(PoolRequest.MAX_VMS) Integer maxUnavailable,
    @Nullable
        @Pattern(
            regexp = "^(running|suspended)$",
            message = "must be one of \"running\", \"suspended\"")
        String standby,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a namespace")
        String namespace) {

  public static final int MAX_VMS = 10_000;

  public static final String NAME_MESSAGE =
      "must be a DNS label of at most 50 characters (lowercase letters, digits or '-', starting and ending with a"
          + " letter or digit), so that its replicas' names <pool>-<ordinal> are DNS labels too";
}
