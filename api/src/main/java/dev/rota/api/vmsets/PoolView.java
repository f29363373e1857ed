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
    Status status,
    Instant createdAt)
    implements Named {

  /**
   * @param ready replicas running and ready: what a claim takes now
   * @param starting replicas not yet ready
   * @param claimed VMs claimed from the pool that still exist
   * @param message what keeps the pool from {@code minReady} ready replicas, or null
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  @Serdeable
  public record Status(long ready, long starting, long claimed, @Nullable String message) {}
}
