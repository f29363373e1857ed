package dev.rota.agent;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/** {@code PUT /v1/tasks/{id}}: the VM's spec, as the controller sends it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TaskSpec(
    String vm,
    int restartCount,
    String runtime,
    String image,
    List<String> command,
    Map<String, String> env,
    Map<String, Long> resources) {}
