package dev.rota.api.secrets;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** {@code PUT /v1/secrets/{name}}: the secret's new value, for the VMs that start from now on. */
@Serdeable
public record SecretValueRequest(@NotNull @Size(max = SecretRequest.MAX_VALUE) String value) {}
