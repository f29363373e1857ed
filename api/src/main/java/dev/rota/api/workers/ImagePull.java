package dev.rota.api.workers;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * A fetch of an image a worker's agent has under way ({@code pulling}, its message how far) or that
 * failed ({@code failed}, its message why), in a heartbeat ({@code pulls}).
 */
@Serdeable
public record ImagePull(
    @NotBlank @Size(max = 2048) String image,
    @NotBlank @Pattern(regexp = "^(pulling|failed)$", message = "must be pulling or failed")
        String state,
    @Size(max = 1024) String message) {
  /** The most an agent may report at once. */
  public static final int MAX = 64;
}
