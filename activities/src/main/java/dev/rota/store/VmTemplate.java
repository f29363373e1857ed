package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Map;

/**
 * What a VM runs and asks for, without its name: a submitted VM's spec, and a VM set's template, from
 * which each of its replicas is made alike.
 */
@Serdeable
public record VmTemplate(
    String runtime,
    @Nullable String image,
    List<String> command,
    Map<String, String> env,
    Map<String, Long> resources,
    Map<String, String> labels,
    String restartPolicy) {}
