package dev.rota.host;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * {@code rota.agent.heartbeat-interval}: how often dev mode's agents heartbeat (a production agent
 * reads its own {@code ROTA_AGENT_HEARTBEAT_INTERVAL}); checked by {@link DevAgents#RULES}.
 */
@ConfigurationProperties("rota.agent")
public record DevAgentPace(@Bindable(defaultValue = "5s") String heartbeatInterval) {}
