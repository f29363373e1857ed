package dev.rota.api.workers;

import io.micronaut.serde.annotation.Serdeable;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;

/**
 * What {@code PATCH /v1/workers/{name}} takes, for the API's document: schedulingPaused and nothing
 * else (the service reads the body as a map, to name a field that may not change).
 */
@Serdeable
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record WorkerPatch(@NotNull Boolean schedulingPaused) {}
