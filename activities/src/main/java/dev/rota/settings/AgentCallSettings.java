package dev.rota.settings;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * {@code rota.agents.*}: how the controller calls agents.
 *
 * @param timeout the deadline of one call to one agent; a slower agent counts as unreachable this term
 * @param parallelism how many agents are called at once
 */
@ConfigurationProperties("rota.agents")
public record AgentCallSettings(
    @Bindable(defaultValue = "3s") Duration timeout, @Bindable(defaultValue = "32") int parallelism) {}
