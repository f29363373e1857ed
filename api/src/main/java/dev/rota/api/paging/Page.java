package dev.rota.api.paging;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;

/** One page of a list; {@code nextCursor} is null on the last page. */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record Page<T>(List<T> items, @Nullable String nextCursor) {}
