package dev.rota.api.paging;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;

/** One page of a list; {@code nextCursor} is null on the last page. */
@Serdeable
public record Page<T>(List<T> items, @Nullable String nextCursor) {}
