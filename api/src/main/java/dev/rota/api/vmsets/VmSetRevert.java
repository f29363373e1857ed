package dev.rota.api.vmsets;

import io.micronaut.serde.annotation.Serdeable;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * What {@code POST /v1/vm-sets/{name}/revert} takes, for the API's document: the version whose
 * template the set goes back to (the service reads the body as a map, to name a field it does not
 * take).
 */
@Serdeable
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record VmSetRevert(@NotNull @Min(1) Integer version) {}
