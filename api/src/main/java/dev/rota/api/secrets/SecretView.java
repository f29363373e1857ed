package dev.rota.api.secrets;

import dev.rota.api.Named;
import dev.rota.store.SecretRow;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/** A secret as the API shows it: its name, namespace and times, never its value. */
@Serdeable
public record SecretView(String name, Instant createdAt, Instant updatedAt, String namespace)
    implements Named {
  static SecretView of(SecretRow row) {
    return new SecretView(row.name(), row.createdAt(), row.updatedAt(), row.namespace());
  }
}
