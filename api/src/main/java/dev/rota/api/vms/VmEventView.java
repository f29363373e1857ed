package dev.rota.api.vms;

import dev.rota.store.VmEventRow;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

@Serdeable
public record VmEventView(Instant time, String type, String message) {
  public static VmEventView of(VmEventRow row) {
    return new VmEventView(row.time(), row.type(), row.message());
  }
}
