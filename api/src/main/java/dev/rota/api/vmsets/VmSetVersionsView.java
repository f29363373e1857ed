package dev.rota.api.vmsets;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;

/** {@code GET /v1/vm-sets/{name}/versions}: the templates a set has had, the newest first. */
@Serdeable
public record VmSetVersionsView(List<Version> items) {
  /**
   * @param current whether it is the template the set's replicas are now made of
   * @param createdBy the service account that gave it; null when not known
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  @Serdeable
  public record Version(
      int version,
      boolean current,
      dev.rota.api.vms.VmSpecView template,
      Instant createdAt,
      @Nullable String createdBy) {}
}
