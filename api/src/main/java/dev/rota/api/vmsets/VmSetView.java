package dev.rota.api.vmsets;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * A VM set as the API shows it: what the user asked for, and how its replicas stand.
 *
 * @param spread {@code "none"}, {@code "distinct-workers"} or {@code {"label": key}}, as it was
 *     given
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VmSetView(
    String name,
    int replicas,
    dev.rota.api.vms.VmSpecView template,
    Object spread,
    int maxUnavailable,
    Status status,
    Instant createdAt)
    implements Named {

  /**
   * @param message what keeps the set from {@code desired} running replicas, or null when nothing
   *     does
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  @Serdeable
  public record Status(
      int desired, long running, long ready, long pending, @Nullable String message) {}
}
