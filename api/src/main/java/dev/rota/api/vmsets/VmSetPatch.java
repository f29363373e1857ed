package dev.rota.api.vmsets;

import io.micronaut.serde.annotation.Serdeable;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * What {@code PATCH /v1/vm-sets/{name}} takes, for the API's document: replicas and nothing else
 * (the service reads the body as a map, to name a field that may not change).
 */
@Serdeable
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record VmSetPatch(@NotNull @Min(0) @Max(VmSetRequest.MAX_REPLICAS) Integer replicas) {}
