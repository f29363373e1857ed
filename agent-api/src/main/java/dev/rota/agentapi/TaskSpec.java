package dev.rota.agentapi;

import java.util.List;
import java.util.Map;

/**
 * {@code PUT /v1/tasks/{id}}: the VM's spec, as the controller sends it and the agent runs it.
 *
 * @param restartCount the generation the task is of
 * @param image null for the process runtime
 */
public record TaskSpec(
    String vm,
    int restartCount,
    String runtime,
    String image,
    List<String> command,
    Map<String, String> env,
    Map<String, Long> resources) {}
