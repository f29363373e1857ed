package dev.rota.api.workers;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * {@code PUT /v1/workers/{name}/heartbeat}'s optional body: the images the agent holds now, and the
 * fetches it has under way or that failed, sent when they changed since its last heartbeat was
 * accepted. Absent, what the worker holds stays as it was.
 */
@Serdeable
public record HeartbeatRequest(
    @Nullable @Size(max = HeldImage.MAX) List<@NotNull @Valid HeldImage> images,
    @Nullable @Size(max = ImagePull.MAX) List<@NotNull @Valid ImagePull> pulls) {}
