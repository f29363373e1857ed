package dev.rota.api.templates;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A template as shown: as it was given, with its times. */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record TemplateView(
    String name,
    Map<String, Object> spec,
    List<TemplateRequest.Parameter> parameters,
    @Nullable String description,
    Instant createdAt,
    Instant updatedAt,
    String namespace)
    implements Named {}
