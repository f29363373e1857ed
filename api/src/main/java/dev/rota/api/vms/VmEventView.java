package dev.rota.api.vms;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.store.VmEventRow;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VmEventView(Instant time, String type, String message) {
  public static VmEventView of(VmEventRow row) {
    return new VmEventView(row.time(), row.type(), row.message());
  }
}
