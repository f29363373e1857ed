package dev.rota.api.schedules;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Size;

/**
 * {@code POST /v1/schedules/{name}/pause} and {@code /resume}: why, shown with the schedule.
 *
 * @param note why it is paused or resumed; left out, who did it
 */
@Serdeable
public record PauseRequest(@Nullable @Size(max = 512) String note) {}
