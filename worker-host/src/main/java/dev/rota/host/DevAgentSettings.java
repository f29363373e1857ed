package dev.rota.host;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * {@code rota.dev.*}: the agents dev mode runs in the host (docs/configuration.md); their checks
 * are {@link DevAgents#RULES}.
 *
 * @param agents how many
 * @param agentResources what each offers, as {@code cpu=4,memory=8192}; null: its share of the
 *     machine's cores and memory
 * @param agentRuntimes the runtimes they offer; null: {@code process} and {@code synthetic}, and
 *     {@code qemu} where QEMU is installed
 * @param agentSyntheticStartDelay how long their {@code synthetic} tasks take to start; null: the
 *     agent's own default
 * @param agentRegistryAuth the OCI registries' credentials they use, a Docker {@code config.json}
 *     (an agent's {@code ROTA_AGENT_REGISTRY_AUTH}); null: none
 */
@ConfigurationProperties("rota.dev")
public record DevAgentSettings(
    @Bindable(defaultValue = "2") int agents,
    @Nullable String agentResources,
    @Nullable String agentRuntimes,
    @Nullable String agentSyntheticStartDelay,
    @Nullable String agentRegistryAuth) {}
