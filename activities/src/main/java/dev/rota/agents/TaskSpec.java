package dev.rota.agents;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Map;

/** What {@code PUT /v1/tasks/{id}} carries: the VM's spec. */
@Serdeable
public record TaskSpec(
    String vm,
    int restartCount,
    String runtime,
    @Nullable String image,
    List<String> command,
    Map<String, String> env,
    Map<String, Long> resources) {}
