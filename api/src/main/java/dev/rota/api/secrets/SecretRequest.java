package dev.rota.api.secrets;

import dev.rota.api.Names;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * {@code POST /v1/secrets}: a name and its value, which no answer ever shows again, and the
 * namespace whose VMs may refer to it ({@code default} unless given).
 */
@Serdeable
public record SecretRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @NotNull @Size(max = SecretRequest.MAX_VALUE) String value,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a namespace")
        String namespace) {
  /** 64 KiB: as much as a guest's user data, which a secret may be. */
  public static final int MAX_VALUE = 65_536;
}
