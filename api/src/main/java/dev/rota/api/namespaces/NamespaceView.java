package dev.rota.api.namespaces;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import dev.rota.core.model.NamespaceUsage;
import dev.rota.core.model.Quota;
import dev.rota.store.NamespaceRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * A namespace as the API shows it: its quota (a limit left out is none) and what its VMs hold
 * against it.
 */
@Serdeable
public record NamespaceView(
    String name,
    @Nullable String description,
    QuotaView quota,
    UsageView used,
    Instant createdAt,
    Instant updatedAt)
    implements Named {

  /** Limits: cores, MiB, VMs, GiB of root disk; those left out are none. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Serdeable
  public record QuotaView(
      @Nullable Long cpu, @Nullable Long memory, @Nullable Long vms, @Nullable Long disk) {
    static QuotaView of(Quota q) {
      return new QuotaView(q.cpu(), q.memory(), q.vms(), q.diskGi());
    }
  }

  /** What its VMs hold: cores, MiB, VMs, GiB of root disk. */
  @Serdeable
  public record UsageView(long cpu, long memory, long vms, long disk) {
    static UsageView of(NamespaceUsage u) {
      return new UsageView(u.cpu(), u.memory(), u.vms(), u.diskGi());
    }
  }

  static NamespaceView of(NamespaceRow row) {
    return new NamespaceView(
        row.name(),
        row.description(),
        QuotaView.of(row.quota()),
        UsageView.of(row.used()),
        row.createdAt(),
        row.updatedAt());
  }
}
