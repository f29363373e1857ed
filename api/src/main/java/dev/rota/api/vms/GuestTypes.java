package dev.rota.api.vms;

import dev.rota.agentapi.GuestSpec;
import io.micronaut.serde.annotation.SerdeImport;

/** The agent API's guest record, which a VM shows as its {@code guest}. */
@SerdeImport(GuestSpec.class)
@SerdeImport(dev.rota.agentapi.Disconnect.class)
final class GuestTypes {
  private GuestTypes() {}
}
