package dev.rota.api.vmsets;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/** A warm pool as the API shows it: what the user asked for, and how its replicas stand. */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record PoolView(
    String name,
    int minReady,
    int max,
    dev.rota.api.vms.VmSpecView template,
    Object spread,
    int maxUnavailable,
    String standby,
    Status status,
    Instant createdAt)
    implements Named {

  /**
   * @param ready replicas ready to be claimed: running and ready, or for a pool whose standby is
   *     {@code suspended}, suspended
   * @param starting replicas not yet ready (for a suspended standby, not yet suspended)
   * @param claimed VMs claimed from the pool that still exist
   * @param message what keeps the pool from {@code minReady} ready replicas, or null
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  @Serdeable
  public record Status(long ready, long starting, long claimed, @Nullable String message) {}
}
